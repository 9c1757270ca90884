import ArgumentParser
@testable import eddy
import EddyTestSupport
import Foundation
import XCTest

/// `ServeFastPath` against ArgumentParser, which stays the definition of `eddy serve`'s options:
/// the fast path must know exactly `Serve`'s options, and for any argument list it reads, give what
/// ArgumentParser gives; what it declines, ArgumentParser reads.
final class ServeFastPathTests: XCTestCase {
    /// `Serve`'s options as ArgumentParser describes them (`--experimental-dump-help`'s JSON).
    private func argumentParserKinds() throws -> [String: ServeFastPath.Kind] {
        let dump = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(Eddy.Serve._dumpHelp().utf8)) as? [String: Any])
        let command = try XCTUnwrap(dump["command"] as? [String: Any])
        var kinds: [String: ServeFastPath.Kind] = [:]
        for argument in try XCTUnwrap(command["arguments"] as? [[String: Any]]) {
            let entries = argument["names"] as? [[String: Any]] ?? []
            let names = entries.compactMap { $0["name"] as? String }
            if names.contains("help") { continue } // ArgumentParser's own; the fast path leaves it to it
            let long = try XCTUnwrap(entries.first { $0["kind"] as? String == "long" }?["name"] as? String,
                                     "every option of serve has a long name: \(names)")
            XCTAssertEqual(names, [long], "a short name or alias would need the fast path to know it")
            switch argument["kind"] as? String {
            case "flag": kinds[long] = .flag
            case "option": kinds[long] = (argument["isRepeating"] as? Bool == true) ? .repeating : .single
            default: XCTFail("serve takes no positional argument, found \(argument)")
            }
        }
        return kinds
    }

    private var fastKinds: [String: ServeFastPath.Kind] {
        Dictionary(ServeFastPath.options.map { ($0.name, $0.kind) }, uniquingKeysWith: { a, _ in a })
    }

    func test_knowsEveryOptionOfServe_withItsKind() throws {
        let kinds = try argumentParserKinds()
        XCTAssertEqual(kinds.count, 34)
        XCTAssertEqual(ServeFastPath.options.count, kinds.count, "a name twice")
        XCTAssertEqual(fastKinds, kinds)
    }

    func test_everyOptionSetsItsOwnValue() throws {
        let samples = ["listen": "127.0.0.1:9", "origin": "http://o.example", "allow-host": "*.example.com", "parent": "http://p:3128",
                       "child": "10.0.0.0/8", "max-size": "10G", "memory-cache": "32M", "download-rate-limit": "4M",
                       "access-log-format": "json", "log-format": "json", "workers": "4", "offline-wait": "1.5",
                       "readahead": "16M", "tls-listen": "127.0.0.1:8443"]
        for (name, kind) in ServeFastPath.options.map({ ($0.name, $0.kind) }) {
            let value = samples[name] ?? (["default-ttl", "prefetch-segments", "header-timeout", "connect-timeout", "stall-timeout",
                                           "max-upstream-per-host"].contains(name) ? "7" : "v")
            let arguments = kind == .flag ? ["--\(name)"] : ["--\(name)", value]
            let fast = try XCTUnwrap(ServeFastPath.parse(arguments), "\(arguments)")
            XCTAssertNotEqual(fast, ServeOptions(), "\(arguments) changed nothing")
            XCTAssertEqual(fast, try Eddy.Serve.parse(arguments).options, "\(arguments)")
        }
    }

    func test_declinesWhatItCanNotBeSureOf() {
        for arguments in [["--help"], ["-h"], ["--nope", "x"], ["positional"], ["--"], ["--listen"], ["--listen", "-x"],
                          ["--listen="], ["--default-ttl", "soon"], ["--listen", "a", "--listen", "b"],
                          ["--cache-keys=true"], ["--cache-keys", "--cache-keys"], ["--experimental-dump-help"],
                          ["--generate-completion-script", "bash"], ["--version"]] {
            XCTAssertNil(ServeFastPath.parse(arguments), "\(arguments)")
        }
    }

    /// Random argument lists, mostly well-formed, some not: whatever the fast path accepts (and
    /// `validate` passes) ArgumentParser must accept with equal values; and whatever is plain (no
    /// value that begins with `-` or is empty, no single-valued option twice, nothing unknown)
    /// and ArgumentParser accepts, the fast path must accept too, or the start would not be fast.
    func test_agreesWithArgumentParser_onRandomArgumentLists() throws {
        let words = ["a", "x y", "127.0.0.1:8080", "[::1]:9", "http://o.example/p", "/p=http://o.example", "10G", "32M", "json",
                     "combined", "text", "debug", "auto", "4", "0", "é", "=", "a=b", "-x", "", "-1", "+5", "1.5", "nan", "1e3",
                     "99999999999999999999", "*.example.com", "10.0.0.0/8", "http://parent:3128"]
        let names = ServeFastPath.options.map(\.name)
        var rng = SplitMix(state: 33)
        var accepted = 0
        for _ in 0..<2000 {
            var arguments: [String] = []
            var plain = true
            var used = Set<String>()
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                if Int.random(in: 0..<40, using: &rng) == 0 {
                    arguments.append(["--nope", "pos", "-h", "--"].randomElement(using: &rng)!)
                    plain = false
                    continue
                }
                let name = names.randomElement(using: &rng)!
                let kind = fastKinds[name]!
                if kind != .repeating, !used.insert(name).inserted { plain = false }
                if kind == .flag { arguments.append("--\(name)"); continue }
                let value = words.randomElement(using: &rng)!
                if value.isEmpty || value.hasPrefix("-") { plain = false }
                if Bool.random(using: &rng) { arguments += ["--\(name)", value] } else { arguments.append("--\(name)=\(value)") }
            }
            let fast = ServeFastPath.parse(arguments).flatMap { o in (try? o.validate()).map { o } }
            let slow: ServeOptions?
            do { slow = try Eddy.Serve.parse(arguments).options } catch { slow = nil } // nil: ArgumentParser refused them
            if let fast {
                accepted += 1
                XCTAssertEqual(slow, fast, "\(arguments)")
            } else if plain, slow != nil {
                XCTFail("the fast path declined plain arguments ArgumentParser takes: \(arguments)")
            }
        }
        XCTAssertGreaterThan(accepted, 200, "the generator should mostly make lists both accept")
    }
}

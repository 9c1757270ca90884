import EddyCache
import EddyCore
import EddyLoop
import Glibc

/// The homes of the proxy's resources, one per event loop (issue 15). A resource lives on the
/// loop its key's cache stripe names (`CacheStore.stripe(of:count:)`): its coordinator, its fills
/// and its stripe's state are touched there only, so a resource still has exactly one
/// coordinator and single-flight holds across loops. Whatever starts elsewhere (a request
/// accepted on another loop, a prefetch a playlist names, a download, an admin call) reaches the
/// resource through this: posted to its home and, for the main loop's callers (downloads and the
/// admin API), answered by a completion posted back (`ask`). Nothing waits on a home.
///
/// Generic over what a home is, so that each layer keeps its own part of a loop: the resources'
/// (`ResourceHome`, which downloads and the admin API reach) and the serving side's above it.
/// Set up once, before any loop but the main one runs (`install`); read-only afterwards.
package final class LoopHomes<Home: LoopHome>: @unchecked Sendable {
    package private(set) var all: [Home] = []

    /// The number of homes (and cache stripes), fixed from the start: a key's home never changes
    /// while eddy runs, even before every home is installed.
    package let count: Int

    package init(count: Int) {
        self.count = count
    }

    /// Adds the next home (the main loop's first).
    package func install(_ home: Home) {
        precondition(home.index == all.count && all.count < count)
        all.append(home)
    }

    /// The home of the resource stored under `key` (a URL key, or a `VaryKey` of one).
    package func home(of key: String) -> Home { all[CacheStore.stripe(of: key, count: count)] }

    /// Runs `body` on `key`'s home: at once when called there, otherwise posted to its loop
    /// (after the jobs already posted there).
    package func run(onHomeOf key: String, _ body: @escaping (Home) -> Void) {
        let h = home(of: key)
        if h.isCurrent { body(h) } else { h.mailbox.post { body(h) } }
    }

    /// Runs `body` on every home (on the caller's own at once).
    package func runEverywhere(_ body: @escaping (Home) -> Void) {
        for h in all {
            if h.isCurrent { body(h) } else { h.mailbox.post { body(h) } }
        }
    }

    /// Runs `body` on `key`'s home and hands its result to `done` on the main loop, where the
    /// download engine and the admin API live: a round trip through two mailboxes, and nothing
    /// waits (at once when the home is the main loop).
    package func ask<T>(onHomeOf key: String, _ body: @escaping (Home) -> T, then done: @escaping (T) -> Void) {
        ask(on: home(of: key), body, then: done)
    }

    /// Runs `body` on `home`, then `done` with its result on the main loop (see `ask(onHomeOf:)`).
    package func ask<T>(on home: Home, _ body: @escaping (Home) -> T, then done: @escaping (T) -> Void) {
        if home.isCurrent { return done(body(home)) }
        let main = all[0]
        precondition(main.isCurrent, "homes are asked from the main loop")
        home.mailbox.post {
            let v = body(home)
            main.mailbox.post { done(v) }
        }
    }

    /// Runs `body` on the homes of `items` (by `key`), once per home with the items it is home to,
    /// then `done` on the main loop with what they all returned, once every home has answered.
    package func ask<Item, T>(_ items: [Item], by key: (Item) -> String, _ body: @escaping (Home, [Item]) -> [T],
                      then done: @escaping ([T]) -> Void) {
        let groups = Dictionary(grouping: items) { home(of: key($0)).index }
        guard !groups.isEmpty else { return done([]) }
        var results: [T] = [], left = groups.count
        for (index, mine) in groups {
            ask(on: all[index], { body($0, mine) }) { r in
                results += r
                left -= 1
                if left == 0 { done(results) }
            }
        }
    }

    /// Runs `body` on every home, then `done` on the main loop with their results in home order
    /// (the main loop's first).
    package func askAll<T>(_ body: @escaping (Home) -> T, then done: @escaping ([T]) -> Void) {
        var results = [T?](repeating: nil, count: all.count), left = all.count
        for h in all {
            ask(on: h, body) { v in
                results[h.index] = v
                left -= 1
                if left == 0 { done(results.map { $0! }) }
            }
        }
    }
}

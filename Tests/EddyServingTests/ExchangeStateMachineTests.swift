import EddyCore
@testable import EddyResources
import XCTest
@testable import EddyServing

/// One cached response's life and Cache-Status, as a value.
final class ExchangeStateMachineTests: XCTestCase {
    private func streaming(from lookup: ValidationStateMachine.Lookup = .hit, version: Int = 1) -> ExchangeStateMachine {
        var m = ExchangeStateMachine()
        m.lookedUp(lookup)
        m.planned(version: version)
        m.headPlanned(covered: false)
        m.headSent()
        return m
    }

    /// RFC 9211 section 2.2: a URL whose stored responses vary, none matching, is `vary-miss`; a
    /// response that looks up its variant again after the head it waited for stays the miss it was.
    func test_cacheStatus_ofVariants() {
        var varyMiss = ExchangeStateMachine()
        varyMiss.lookedUp(.discover, variant: true)
        varyMiss.headPlanned(covered: true)
        XCTAssertEqual(varyMiss.cacheStatus.description, "eddy; fwd=vary-miss; stored")
        var first = ExchangeStateMachine()
        first.lookedUp(.discover)
        first.lookedUp(.hit, variant: true, again: true)
        first.headPlanned(covered: false)
        XCTAssertEqual(first.cacheStatus.forward, .uriMiss)
        var joined = ExchangeStateMachine()
        joined.lookedUp(.joinDiscovery)
        joined.lookedUp(.discover, variant: true, again: true)
        XCTAssertEqual(joined.cacheStatus.forward, .varyMiss, "another variant: fetched for this request")
    }

    func test_aVersionChangeInMidResponse_cutsItOff() {
        let m = streaming(version: 3)
        XCTAssertNil(m.versionCheck(current: 3))
        XCTAssertEqual(m.versionCheck(current: 4), "the origin's representation changed during the response")
    }

    func test_aVersionChangeBeforeTheHead_isNotACut_theResponseIsPlannedAgain() {
        var m = ExchangeStateMachine()
        m.planned(version: 1)
        XCTAssertNil(m.versionCheck(current: 2), "nothing was sent of version 1")
        m.planned(version: 2)
        m.headSent()
        XCTAssertNil(m.versionCheck(current: 2))
    }

    func test_aFillBoundedByReadahead_isSaidInDetailAndTheLogWord_unlessADetailSaysMore() {
        var partial = ExchangeStateMachine()
        partial.lookedUp(.hit)
        partial.ranAhead()
        partial.headPlanned(covered: false)
        XCTAssertEqual(partial.cacheStatus.description, "eddy; fwd=partial; stored; detail=readahead")
        XCTAssertEqual(partial.cacheStatus.logWord, "PARTIAL+READAHEAD")
        var swr = ExchangeStateMachine()
        swr.lookedUp(.serveStaleWhileRevalidating)
        swr.ranAhead()
        XCTAssertEqual(swr.cacheStatus.detail, "stale-while-revalidate")
        XCTAssertEqual(swr.cacheStatus.logWord, "HIT")
    }

    func test_cacheStatus_followsTheLookupAndTheCoverage() {
        var hit = ExchangeStateMachine()
        hit.lookedUp(.hit)
        hit.headPlanned(covered: true)
        XCTAssertEqual(hit.cacheStatus.description, "eddy; hit")
        var partial = ExchangeStateMachine()
        partial.lookedUp(.hit)
        partial.headPlanned(covered: false)
        XCTAssertEqual(partial.cacheStatus.forward, .partial)
        XCTAssertTrue(partial.cacheStatus.stored)
        var miss = ExchangeStateMachine()
        miss.lookedUp(.discover)
        miss.headPlanned(covered: true)
        XCTAssertEqual(miss.cacheStatus.forward, .uriMiss, "a new URL stays a miss even once its bytes are stored")
        var stale = ExchangeStateMachine()
        stale.lookedUp(.revalidate)
        stale.headPlanned(covered: false)
        XCTAssertEqual(stale.cacheStatus.forward, .stale)
        var revalidated = ExchangeStateMachine()
        revalidated.lookedUp(.joinRevalidation)
        revalidated.headPlanned(covered: true)
        XCTAssertEqual(revalidated.cacheStatus.forward, .stale, "validated with the origin: fwd=stale (RFC 9211)")
        var swr = ExchangeStateMachine()
        swr.lookedUp(.serveStaleWhileRevalidating)
        swr.headPlanned(covered: true)
        XCTAssertEqual(swr.cacheStatus.description, "eddy; hit; detail=stale-while-revalidate")
        var joined = ExchangeStateMachine()
        joined.lookedUp(.joinDiscovery)
        joined.rangeNotSatisfiable()
        XCTAssertNil(joined.cacheStatus.forward, "nothing was fetched for a 416")
    }

    func test_aFailedHead_servesTheStaleCopyWhenAllowed() {
        var m = ExchangeStateMachine()
        m.lookedUp(.revalidate)
        XCTAssertEqual(m.headFailed("timed out", timeout: true, staleServable: true, storedStillCurrent: true), .serveStale)
        XCTAssertEqual(m.cacheStatus.detail, "stale: timed out")
    }

    func test_aFailedHead_servesADownloadsCopyAsAnOfflineHit_whateverItsDirectives() {
        var m = ExchangeStateMachine()
        m.lookedUp(.revalidate)
        XCTAssertEqual(m.headFailed("refused", timeout: false, staleServable: false, offline: true, storedStillCurrent: true), .serveStale)
        XCTAssertEqual(m.cacheStatus.description, "eddy; hit; detail=offline")
        XCTAssertTrue(m.isOffline)
        var online = ExchangeStateMachine()
        online.lookedUp(.revalidate)
        _ = online.headFailed("refused", timeout: false, staleServable: true, storedStillCurrent: true)
        XCTAssertFalse(online.isOffline)
    }

    func test_aFailedHead_withoutAStaleCopy_is502Or504() {
        var m = ExchangeStateMachine()
        m.lookedUp(.discover)
        XCTAssertEqual(m.headFailed("refused", timeout: false, staleServable: false, storedStillCurrent: false),
                       .fail(status: 502, reason: "upstream: refused"))
        var slow = ExchangeStateMachine()
        slow.lookedUp(.revalidate)
        XCTAssertEqual(slow.headFailed("slow", timeout: true, staleServable: false, storedStillCurrent: true),
                       .fail(status: 504, reason: "upstream: slow"), "must-revalidate: no stale copy")
    }

    func test_aFailedValidationBeforeTheHead_goesOnWithTheStoredBytes() {
        var m = ExchangeStateMachine()
        m.lookedUp(.hit)
        XCTAssertTrue(m.shouldValidateBeforeHead(isHead: false, hasValidator: true, storeBroken: false, fillStreaming: false))
        XCTAssertFalse(m.shouldValidateBeforeHead(isHead: false, hasValidator: true, storeBroken: false, fillStreaming: false), "once")
        XCTAssertEqual(m.headFailed("reset", timeout: false, staleServable: true, storedStillCurrent: true), .respondStored)
        var replaced = ExchangeStateMachine()
        replaced.lookedUp(.hit)
        _ = replaced.shouldValidateBeforeHead(isHead: false, hasValidator: true, storeBroken: false, fillStreaming: false)
        XCTAssertEqual(replaced.headFailed("reset", timeout: false, staleServable: true, storedStillCurrent: false),
                       .fail(status: 502, reason: "upstream: reset"))
    }

    func test_aFailedValidationBeforeTheHead_forAChild_is502Or504_soItAsksItsNextParent() {
        for (timeout, status) in [(false, 502), (true, 504)] {
            var m = ExchangeStateMachine()
            m.lookedUp(.hit)
            XCTAssertTrue(m.shouldValidateBeforeHead(isHead: false, hasValidator: true, storeBroken: false, fillStreaming: false))
            XCTAssertEqual(m.headFailed("refused", timeout: timeout, staleServable: true, storedStillCurrent: true, askedByChild: true),
                           .fail(status: status, reason: "upstream: refused"))
        }
        var unvalidated = ExchangeStateMachine()
        unvalidated.lookedUp(.revalidate)
        XCTAssertEqual(unvalidated.headFailed("refused", timeout: false, staleServable: false, storedStillCurrent: true, askedByChild: true),
                       .fail(status: 502, reason: "upstream: refused"))
    }

    func test_validationBeforeTheHead_isSkippedWhereItCanNotHelp() {
        var head = ExchangeStateMachine()
        XCTAssertFalse(head.shouldValidateBeforeHead(isHead: true, hasValidator: true, storeBroken: false, fillStreaming: false))
        var miss = ExchangeStateMachine()
        miss.lookedUp(.discover)
        XCTAssertFalse(miss.shouldValidateBeforeHead(isHead: false, hasValidator: true, storeBroken: false, fillStreaming: false),
                       "the origin was just asked")
        var noValidator = ExchangeStateMachine()
        noValidator.lookedUp(.hit)
        XCTAssertFalse(noValidator.shouldValidateBeforeHead(isHead: false, hasValidator: false, storeBroken: false, fillStreaming: false))
        var streamingFill = ExchangeStateMachine()
        streamingFill.lookedUp(.hit)
        XCTAssertFalse(streamingFill.shouldValidateBeforeHead(isHead: false, hasValidator: true, storeBroken: false, fillStreaming: true))
        XCTAssertTrue(streamingFill.validated, "the fill of this version answers the question")
    }

    func test_aFailedHeadAfterTheHeadWasSent_abortsTheResponse() {
        var m = streaming(from: .hit)
        XCTAssertEqual(m.headFailed("reset", timeout: false, staleServable: false, storedStillCurrent: true), .abort("reset"))
    }

    func test_finishAndPassThrough_happenOnce() {
        var m = streaming()
        XCTAssertTrue(m.finish())
        XCTAssertFalse(m.finish())
        XCTAssertFalse(m.passThrough(), "a finished response is not handed over")
        var n = ExchangeStateMachine()
        XCTAssertTrue(n.passThrough())
        XCTAssertTrue(n.isDone)
        XCTAssertFalse(n.finish(), "the pass-through response ends it")
    }

    func test_anUnreadablePlaylist_isPlannedAgainAsBytes() {
        var m = ExchangeStateMachine()
        m.awaitingPlaylist()
        XCTAssertEqual(m.state, .streamingPlaylist)
        m.playlistUnreadable()
        XCTAssertEqual(m.state, .resolving)
        XCTAssertTrue(m.playlistAsBytes)
        m.awaitingPlaylist()
        XCTAssertEqual(m.state, .resolving, "not read as a playlist again")
    }

    func test_aRevalidationNamesTheOriginsAnswer_otherForwardsDoNot() {
        var revalidated = ExchangeStateMachine()
        revalidated.lookedUp(.revalidate)
        revalidated.originAnswered(304)
        XCTAssertEqual(revalidated.cacheStatus.description, "eddy; fwd=stale; fwd-status=304")
        var miss = ExchangeStateMachine()
        miss.lookedUp(.discover)
        miss.originAnswered(200)
        XCTAssertNil(miss.cacheStatus.forwardStatus)
    }
}

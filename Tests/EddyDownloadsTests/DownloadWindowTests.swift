@testable import EddyDownloads
import XCTest

/// Download windows as values, and the job machine's window events.
final class DownloadWindowTests: XCTestCase {
    func test_parsesHoursMinutesAndSecondsAndRefusesTheRest() {
        XCTAssertEqual(DownloadWindow.parse("01:00-06:00"), DownloadWindow(start: 3600, end: 6 * 3600))
        XCTAssertEqual(DownloadWindow.parse(" 22:30 - 06:00:15 "), DownloadWindow(start: 22 * 3600 + 1800, end: 6 * 3600 + 15))
        for bad in ["", "1:00-6:00", "01:00", "01:00-01:00", "24:00-01:00", "01:60-02:00", "01:00-02:00-03:00", "+1:00-02:00", "aa:bb-cc:dd",
                    "01:00:60-02:00"] {
            XCTAssertNil(DownloadWindow.parse(bad), bad)
        }
        XCTAssertEqual(DownloadWindow.parse("01:00-06:00")?.description, "01:00-06:00")
        XCTAssertEqual(DownloadWindow.parse("23:59:30-00:00:05")?.description, "23:59:30-00:00:05")
    }

    func test_containsAndNextStartWithinADayAndAcrossMidnight() {
        let night = DownloadWindow.parse("22:00-06:00")!, early = DownloadWindow.parse("01:00-06:00")!
        XCTAssertTrue(night.contains(secondOfDay: 23 * 3600))
        XCTAssertTrue(night.contains(secondOfDay: 0))
        XCTAssertTrue(night.contains(secondOfDay: 22 * 3600))
        XCTAssertFalse(night.contains(secondOfDay: 6 * 3600), "the end is outside")
        XCTAssertFalse(night.contains(secondOfDay: 12 * 3600))
        XCTAssertTrue(early.contains(secondOfDay: 3600))
        XCTAssertFalse(early.contains(secondOfDay: 3599))
        XCTAssertEqual(early.untilStart(from: 0), 3600)
        XCTAssertEqual(early.untilStart(from: 7 * 3600), 18 * 3600, "tomorrow's")
        XCTAssertEqual(night.untilStart(from: 21 * 3600 + 59 * 60), 60)
    }

    func test_aClosedWindowSchedulesAndStopsAJobAndAnOpenOneQueuesIt() {
        var m = DownloadJobStateMachine()
        XCTAssertEqual(m.windowClosed(), .none)
        XCTAssertEqual(m.state, .scheduled)
        XCTAssertEqual(m.windowClosed(), .none)
        XCTAssertEqual(m.windowOpened(), .none)
        XCTAssertEqual(m.state, .queued)
        XCTAssertEqual(m.slotGranted(), .fetch)
        XCTAssertEqual(m.windowClosed(), .stopFetching, "a running job stops its requests")
        XCTAssertEqual(m.state, .scheduled)
        XCTAssertEqual(m.pause(), .none)
        XCTAssertEqual(m.state, .paused)
        XCTAssertEqual(m.windowOpened(), .none)
        XCTAssertEqual(m.state, .paused, "a window never resumes what the user paused")
        XCTAssertEqual(m.windowClosed(), .none)
        XCTAssertEqual(m.state, .paused)
        var done = DownloadJobStateMachine(restoring: .completed)
        XCTAssertEqual(done.windowClosed(), .none)
        XCTAssertEqual(done.state, .completed)
        XCTAssertEqual(DownloadJobStateMachine(restoring: .scheduled).state, .scheduled)
    }
}

/// How many requests a job keeps in flight: up to `download_concurrency`; a 429 or 503 halves
/// it (the origin asks for less), and each run of `size` successes grows it by one again
/// (additive increase, multiplicative decrease, as TCP does).
public struct FetchWindow: Equatable, Sendable {
    public let limit: Int
    public private(set) var size: Int
    private var successes = 0

    public init(limit: Int) {
        self.limit = Swift.max(1, limit)
        size = self.limit
    }

    /// The origin answered `status` (or failed without a status: nil).
    public mutating func answered(_ status: Int?) {
        switch status {
        case 429?, 503?:
            size = Swift.max(1, size / 2)
            successes = 0
        case let s? where s < 400:
            successes += 1
            if successes >= size && size < limit {
                size += 1
                successes = 0
            }
        default:
            break // other failures say nothing about load
        }
    }
}

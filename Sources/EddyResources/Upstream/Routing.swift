import EddyCore
import EddyLoop

/// The routes and the allow-list every part of eddy resolves through (exchanges, prefetch,
/// downloads, the admin API), shared by reference so that a configuration reload (SIGHUP)
/// changes them for everyone at once. Every loop reads them (worker loops route the requests
/// they run themselves), so the value sits behind a lock; a read copies the resolver, a value.
package final class Routing: @unchecked Sendable {
    private let current: Locked<TargetResolver>

    package var resolver: TargetResolver {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    package init(_ resolver: TargetResolver) { current = Locked(resolver) }
}

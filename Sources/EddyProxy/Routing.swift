import EddyCore

/// The routes and the allow-list every part of eddy resolves through (exchanges, prefetch,
/// downloads, the admin API), shared by reference so that a configuration reload (SIGHUP)
/// changes them for everyone at once, on the loop thread, between two events.
final class Routing {
    var resolver: TargetResolver

    init(_ resolver: TargetResolver) { self.resolver = resolver }
}

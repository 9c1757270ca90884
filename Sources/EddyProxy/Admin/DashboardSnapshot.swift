/// What the dashboard shows, sent once a second over `GET /api/events`: the cache's totals and
/// windows, every download with its renditions, the busiest resources with their range maps, and
/// the fills in flight.
struct DashboardSnapshot: Encodable {
    var cache: CacheStatsInfo
    var downloads: [DownloadInfo]
    var resources: [ResourceInfo]
    var fills: [FillInfo]
}

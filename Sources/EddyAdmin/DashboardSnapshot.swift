import EddyDownloads

/// What the dashboard shows, sent once a second over `GET /api/events`: the cache's totals and
/// windows, every download with its renditions, the busiest resources with their range maps, and
/// the fills in flight.
package struct DashboardSnapshot: Encodable {
    var cache: CacheStatsInfo
    var downloads: [DownloadInfo]
    var resources: [ResourceInfo]
    var fills: [FillInfo]

    package init(cache: CacheStatsInfo, downloads: [DownloadInfo], resources: [ResourceInfo], fills: [FillInfo]) {
        (self.cache, self.downloads, self.resources, self.fills) = (cache, downloads, resources, fills)
    }
}

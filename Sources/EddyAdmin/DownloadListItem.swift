import EddyDownloads
import Foundation

/// One item of a `POST /api/downloads` list: the job it created (`status` 201 and its `id`), or
/// why it created nothing (`status` 400 or 502 and `error`), in the list's order.
struct DownloadListItem: Encodable {
    var status: Int
    var url: String?
    var id: String?
    var error: String?
}

/// An item of a posted list as it decodes: a spec, or the reason it is not one. Decoding an
/// item never fails the list: a bad item creates nothing and the others go on.
struct LenientSpec: Decodable {
    var spec: Result<DownloadSpec, DownloadInputError>

    init(from decoder: any Decoder) throws {
        do { spec = .success(try DownloadSpec(from: decoder)) } catch {
            spec = .failure(DownloadInputError("the item must be JSON like {\"url\": \"...\"}: \(DownloadAPI.brief(error))"))
        }
    }
}

/// What a ticket reports to its consumer. Delivered on the resource's home loop; a consumer on
/// another loop will get them through a mailbox, so none of them carries a reference into the
/// coordinator's state.
package enum TicketEvent: Equatable {
    /// Bytes from the ticket's position up to (not including) this offset can be read now.
    case available(upTo: Int)
    /// The origin's representation changed: bytes of the version the consumer started on are gone.
    case newVersion
    /// No more bytes will come for this ticket, with the reason.
    case failed(String)
    /// The cache can not be written; a reading consumer may continue uncached from the origin.
    case cacheUnwritable
    /// Every byte of a fetch-only ticket's range is in the cache.
    case done
}

/// Whoever holds tickets: a response, a prefetch, a download job.
package protocol TicketConsumer: AnyObject {
    /// Called on the resource's home loop; may open, move or close tickets.
    func ticket(_ ticket: Ticket, reports event: TicketEvent)
}

import EddyCore

/// A piece of a response body (see `ResponsePlan.Piece`).
typealias ResponsePiece = ResponsePlan.Piece

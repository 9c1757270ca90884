extension String {
    /// Every occurrence of the one-character `a` replaced by `b` (for quoting log and header values).
    package func replacingAll(_ a: String, _ b: String) -> String {
        split(separator: Character(a), omittingEmptySubsequences: false).joined(separator: b)
    }
}

/// A command that cannot go on, for a reason that is not a wrong option (so no usage text is
/// printed after it): no saved login, no browser redirect in time, an unreadable key file.
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    let description: String

    init(_ description: String) { self.description = description }
}

import Testing

/// The hostile-conditions tests: each failure an audit found, reproduced with real files, real child
/// processes, real signals and real resource limits.
///
/// One test at a time: most of them wait on child processes, and blocking many of the test runner's few
/// threads at once would starve the asynchronous tests running beside them.
@Suite("Hostile conditions", .serialized)
enum Hostile {}

// Every test target that uses the support code also sees the kit (the models, the query-case
// table, temporary directories and stacks moved there so other stores can run the suite).
@_exported import StowageTestKit

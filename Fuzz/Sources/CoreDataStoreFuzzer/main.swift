import CoreDataStoreFuzzTarget
import FuzzDriver

runFuzzer { data, size in coreDataStoreFuzzTestOneInput(data, size) }

import FuzzDriver
import KeyedArchiveFuzzTarget

runFuzzer { data, size in keyedArchiveFuzzTestOneInput(data, size) }

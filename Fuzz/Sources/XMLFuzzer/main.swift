import FuzzDriver
import XMLFuzzTarget

runFuzzer { data, size in xmlFuzzTestOneInput(data, size) }

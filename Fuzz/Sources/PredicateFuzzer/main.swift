import FuzzDriver
import PredicateFuzzTarget

runFuzzer { data, size in predicateFuzzTestOneInput(data, size) }

import FuzzDriver
import ModelContentsFuzzTarget

runFuzzer { data, size in modelContentsFuzzTestOneInput(data, size) }

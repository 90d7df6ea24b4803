/// Positions in a list of rows, in ascending order: a range while they follow each other (a
/// save's new objects of one entity usually do), else the positions themselves — a table's
/// 100,000 new rows are two integers, not 800 KB beside the save's every object.
///
/// For example:
///
/// ```swift
/// var rows = RowPositions()
/// rows.append(3); rows.append(4)   // the range 3..<5
/// rows.append(9)                   // now the list [3, 4, 9]
/// ```
struct RowPositions: RandomAccessCollection {
    private enum Storage {
        case range(Range<Int>)
        case list([Int])
    }

    private var storage = Storage.range(0..<0)

    var startIndex: Int { 0 }
    var endIndex: Int {
        switch storage {
        case .range(let range): range.count
        case .list(let list): list.count
        }
    }

    subscript(position: Int) -> Int {
        switch storage {
        case .range(let range): range.lowerBound + position
        case .list(let list): list[position]
        }
    }

    /// Adds `row`, a position after every one held.
    mutating func append(_ row: Int) {
        switch storage {
        case .range(let range) where range.isEmpty:
            storage = .range(row..<row + 1)
        case .range(let range) where range.upperBound == row:
            storage = .range(range.lowerBound..<row + 1)
        case .range(let range):
            storage = .list(Array(range) + [row])
        case .list(var list):
            storage = .range(0..<0)   // leaves `list` the array's only reference: appended in place
            list.append(row)
            storage = .list(list)
        }
    }
}

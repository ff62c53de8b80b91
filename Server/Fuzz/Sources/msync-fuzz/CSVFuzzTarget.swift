import LocalForce

/// The Bulk APIs' CSV reader. The first byte picks the delimiter, the second the size of the
/// pieces the rest arrives in; the records read piece by piece must be the records read in
/// one piece (a record may span pieces, as uploads are cut anywhere), and an error must be
/// the same error.
struct CSVFuzzTarget: FuzzTarget {
    static let delimiters: [UInt8] = [0x2C, 0x09, 0x7C, 0x3B, 0x5E, 0x60]

    func run(_ data: [UInt8]) {
        guard data.count >= 2 else { return }
        let delimiter = Self.delimiters[Int(data[0]) % Self.delimiters.count]
        let pieceSize = Int(data[1]) + 1
        let input = Array(data.dropFirst(2))
        let whole = Self.read([input], delimiter: delimiter)
        var pieces: [[UInt8]] = []
        var start = 0
        while start < input.count {
            pieces.append(Array(input[start..<min(input.count, start + pieceSize)]))
            start += pieceSize
        }
        let split = Self.read(pieces, delimiter: delimiter)
        guard whole == split else { fatalError("pieces of \(pieceSize) bytes read \(split), one piece \(whole)") }
    }

    private static func read(_ pieces: [[UInt8]], delimiter: UInt8) -> Result<[[String]], CSVError> {
        var reader = CSVReader(delimiter: delimiter)
        var records: [[String]] = []
        do {
            for piece in pieces {
                var offset = 0
                while let record = try reader.next(in: piece, offset: &offset) { records.append(record) }
            }
            if let last = try reader.finish() { records.append(last) }
            return .success(records)
        } catch {
            return .failure(error)
        }
    }
}

extension String {
    /// The columns a terminal gives this text: two for each wide character (CJK, fullwidth
    /// forms, Hangul, emoji shown as emoji), none for a combining mark or other zero-width
    /// scalar, one otherwise, counted per grapheme cluster (a flag, a family emoji or a letter
    /// with its accents is one cluster).
    var displayWidth: Int {
        reduce(0) { $0 + $1.displayWidth }
    }

    /// The longest prefix of this text at most `width` columns wide.
    func prefix(columns width: Int) -> String {
        var used = 0
        var end = startIndex
        for character in self {
            let next = used + character.displayWidth
            guard next <= width else { break }
            used = next
            end = index(after: end)
        }
        return String(self[..<end])
    }
}

extension Character {
    /// The columns a terminal gives this grapheme cluster (see `String.displayWidth`).
    var displayWidth: Int {
        var width = 0
        for scalar in unicodeScalars {
            let properties = scalar.properties
            if scalar.isWide || properties.isEmojiPresentation || (scalar.value == 0xFE0F && properties.isVariationSelector) {
                return 2
            }
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format, .control: continue
            default: width = max(width, 1)
            }
        }
        return width
    }
}

extension Unicode.Scalar {
    /// East Asian Wide or Fullwidth (UAX #11), by the blocks that hold them (CJK, Hangul, kana
    /// and its supplements, Tangut, fullwidth forms); emoji are told by their properties.
    fileprivate var isWide: Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
            0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
            0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF,
            0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default: false
        }
    }
}

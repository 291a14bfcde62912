extension Substring {
    /// Without leading and trailing spaces, tabs, CR and LF (HTTP's optional whitespace).
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" || first == "\n" {
            text = text.dropFirst()
        }
        while let last = text.last, last == " " || last == "\t" || last == "\r" || last == "\n" {
            text = text.dropLast()
        }
        return text
    }
}

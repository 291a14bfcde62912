/// Whether every byte of `bytes` is an ASCII digit (true when there are none):
/// the test for a number written without sign, space or other digits.
@inline(__always)
package func allASCIIDigits(_ bytes: some Sequence<UInt8>) -> Bool {
    bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
}

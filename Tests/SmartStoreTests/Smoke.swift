import Testing
@Test func smoke() { #expect(true) }

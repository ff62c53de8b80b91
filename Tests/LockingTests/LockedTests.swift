import Locking
import Testing

@Suite struct LockedTests {
    @Test func concurrentUpdatesAreNotLost() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    for _ in 0..<1_000 { counter.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.current == 64_000)
    }

    @Test func theDocumentedUse() {
        // snippet.counter
        let requests = Locked(0)
        requests.withLock { $0 += 1 }
        // snippet.end
        #expect(requests.current == 1)
    }

    @Test func bodyResultAndErrorsPassThrough() {
        struct Refused: Error {}
        let names = Locked(["a"])
        let count = names.withLock { names -> Int in
            names.append("b")
            return names.count
        }
        #expect(count == 2)
        #expect(throws: Refused.self) {
            try names.withLock { _ in throw Refused() }
        }
        #expect(names.current == ["a", "b"])
    }
}

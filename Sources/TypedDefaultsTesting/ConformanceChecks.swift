import Foundation
import TypedDefaults

extension DefaultsStoreConformance.Check {
    /// Values of every kind, written through a `DefaultsAdapter`, come back bit for bit through another
    /// adapter, ``DefaultsStore/value(forKey:)`` and ``DefaultsStore/snapshot()``; removed values are gone.
    ///
    /// The values include `"é"` and `"e\u{301}"` (equal to Swift's `==`, different bytes), emoji, empty
    /// strings, integer extremes, `-0.0`, NaN, infinities, subnormals, sub-second dates, empty and binary
    /// data, nested arrays and dictionaries, and stored forms written as they are.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.valuesRoundTrip.run(on: { MyStore() })
    /// ```
    public static let valuesRoundTrip = Self(
        "values round-trip",
        promise: "values of every kind come back exactly as they were written"
    ) { subject in
        let writer = subject.adapter()
        for probe in ValueProbe.catalogue {
            do {
                try probe.write(writer)
            } catch {
                subject.fail("writing \(probe.key) through an adapter threw \(error)")
            }
        }
        let reader = subject.adapter()
        let snapshot = subject.store.snapshot()
        for probe in ValueProbe.catalogue {
            let held = subject.store.value(forKey: probe.key)
            if !held.isIdentical(to: probe.stored) {
                subject.fail(
                    "\(probe.key) was written as \(probe.stored.described); value(forKey:) returns \(held.described)"
                )
                continue
            }
            if !snapshot[probe.key].isIdentical(to: probe.stored) {
                subject.fail(
                    "\(probe.key) was written as \(probe.stored.described); snapshot() holds "
                        + "\(snapshot[probe.key].described)"
                )
            }
            let read = probe.readBack(reader)
            if !read.isIdentical(to: probe.stored) {
                subject.fail(
                    "\(probe.key) was written as \(probe.stored.described); another adapter reads back a value "
                        + "stored as \(read.described)"
                )
            }
        }
        let removed = ValueProbe.catalogue.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element.key)
        for key in removed { writer.reset(Key<PropertyListValue?>(key)) }
        let afterRemoval = subject.store.snapshot()
        for key in removed {
            if let held = subject.store.value(forKey: key) {
                subject.fail("\(key) was removed; value(forKey:) still returns \(held.described)")
            } else if let held = afterRemoval[key] {
                subject.fail("\(key) was removed; snapshot() still holds \(held.described)")
            }
        }
    }

    /// ``DefaultsStore/snapshot()`` is always one consistent state: while threads apply batches that set two
    /// keys to the same value (for half a second at most), snapshots taken at the same time always find both
    /// keys equal.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.consistentSnapshots.run(on: { MyStore() })
    /// ```
    public static let consistentSnapshots = Self(
        "consistent snapshots",
        promise: "a snapshot never holds half of a batch, however many threads write"
    ) { subject in
        let first = "conformance.pair.first"
        let second = "conformance.pair.second"
        let writers = 3
        let deadline = ContinuousClock.now + workBudget
        subject.apply(DefaultsBatch(writes: [first: .integer(0), second: .integer(0)]), "the first pair")
        let finished = Guarded(0)
        let torn = Guarded<(count: Int, example: String?)>((0, nil))
        let lastValues = Guarded<[PropertyListValue]>([])
        await onThreads(writers + 2) { thread in
            if thread < writers {
                var value = PropertyListValue.integer(0)
                for round in 1...150 where round == 1 || ContinuousClock.now < deadline {
                    value = .integer(Int64(thread * 1_000_000 + round))
                    // One writer replaces everything at once; the others write the two keys.
                    let batch =
                        thread == 0
                        ? DefaultsBatch(replacingAllWith: [first: value, second: value])
                        : DefaultsBatch(writes: [first: value, second: value])
                    subject.apply(batch, "a pair of writes")
                }
                lastValues.withLock { $0.append(value) }
                finished.withLock { $0 += 1 }
            } else {
                var looks = 0
                while finished.withLock({ $0 }) < writers || looks < 10 {
                    looks += 1
                    let snapshot = subject.store.snapshot()
                    if !snapshot[first].isIdentical(to: snapshot[second]) {
                        torn.withLock { torn in
                            torn.count += 1
                            torn.example =
                                torn.example
                                ?? "a snapshot holds \(first) = \(snapshot[first].described) but \(second) = "
                                + "\(snapshot[second].described), though every batch sets both to the same value"
                        }
                    }
                }
            }
        }
        let found = torn.withLock { $0 }
        if let example = found.example { subject.fail("\(example) (\(found.count) torn snapshots)") }
        let final = subject.store.snapshot()
        let last = lastValues.withLock { $0 }
        if !final[first].isIdentical(to: final[second]) || !last.contains(where: { final[first] == $0 }) {
            subject.fail(
                "after every batch was applied, \(first) = \(final[first].described) and \(second) = "
                    + "\(final[second].described); expected both to hold one writer's last value"
            )
        }
    }

    /// ``DefaultsStore/apply(_:)`` applies all of a batch or nothing of it: a batch whose
    /// ``DefaultsBatch/expected`` values are not stored (compared bit for bit) returns `false`, changes
    /// nothing and announces nothing; one whose expectations hold applies every write and announces it.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.atomicBatches.run(on: { MyStore() })
    /// ```
    public static let atomicBatches = Self(
        "atomic batches",
        promise: "a batch applies whole when its expectations hold, and not at all when they do not"
    ) { subject in
        let x = "conformance.batch.x"
        let text = "conformance.batch.text"
        let zero = "conformance.batch.zero"
        let other = "conformance.batch.other"
        let recorder = ChangeRecorder(subject.adapter())
        defer { recorder.stop() }
        let seed: [String: PropertyListValue] = [
            x: .integer(1), text: .string(ValueProbe.precomposed), zero: .double(-0.0),
        ]
        guard subject.apply(DefaultsBatch(writes: seed.mapValues { $0 }), "a batch without expectations") == true
        else {
            return subject.fail("a batch without expectations did not apply")
        }

        let refused: [(String, DefaultsBatch)] = [
            (
                "\(x) to hold 5 (it holds 1)",
                DefaultsBatch(
                    writes: [x: .integer(2), text: nil, other: .bool(true)],
                    expected: .values([x: .integer(5)])
                )
            ),
            (
                "\(zero) to hold 0.0 (it holds -0.0)",
                DefaultsBatch(writes: [x: .integer(2)], expected: .values([zero: .double(0.0)]))
            ),
            (
                "\(text) to hold \"e\\u{301}\" (it holds \"\\u{E9}\")",
                DefaultsBatch(writes: [x: .integer(2)], expected: .values([text: .string(ValueProbe.decomposed)]))
            ),
            (
                "\(x) to hold nothing (it holds 1)",
                DefaultsBatch(writes: [other: .integer(2)], expected: .values([x: nil]))
            ),
            (
                "the store to hold only \(x) (it holds three keys)",
                DefaultsBatch(replacingAllWith: [:], expected: .snapshot([x: .integer(1)]))
            ),
            (
                "the store to hold \(x) = 1 but \(other) too (it does not)",
                DefaultsBatch(writes: [x: .integer(3)], expected: .values([x: .integer(1), other: .integer(0)]))
            ),
        ]
        for (expectation, batch) in refused {
            let before = subject.store.snapshot()
            guard let applied = subject.apply(batch, "a batch expecting \(expectation)") else { continue }
            let after = subject.store.snapshot()
            if applied {
                subject.fail("a batch expecting \(expectation) returned true; it must return false")
            }
            if !after.isIdentical(to: before) {
                let changed = before.changes(to: after).map(\.described).joined(separator: ", ")
                subject.fail("a batch expecting \(expectation) changed the store: \(changed)")
                // Back to the seed, for the cases that follow.
                subject.apply(DefaultsBatch(replacingAllWith: seed), "the seed again")
            }
        }

        // Expectations that hold: each batch applies whole.
        let accepted = DefaultsBatch(
            writes: [x: .integer(2), text: nil, other: .string("new")],
            expected: .values([x: .integer(1), zero: .double(-0.0), "conformance.batch.absent": nil])
        )
        if subject.apply(accepted, "a batch whose expectations hold") == false {
            subject.fail("a batch whose expectations hold (\(x) = 1, \(zero) = -0.0, an absent key) returned false")
        }
        var expected = seed
        expected[x] = .integer(2)
        expected[text] = nil
        expected[other] = .string("new")
        let afterAccepted = subject.store.snapshot()
        if !afterAccepted.isIdentical(to: expected) {
            let wrong = expected.changes(to: afterAccepted).map(\.described).joined(separator: ", ")
            subject.fail("a batch whose expectations hold left the store differing from what it writes: \(wrong)")
        }
        let replacement: [String: PropertyListValue] = [other: .integer(7)]
        let replace = DefaultsBatch(replacingAllWith: replacement, expected: .snapshot(afterAccepted))
        if subject.apply(replace, "a replacing batch expecting the current snapshot") == false {
            subject.fail("a batch replacing everything, expecting exactly the current values, returned false")
        }
        let afterReplace = subject.store.snapshot()
        if !afterReplace.isIdentical(to: replacement) {
            subject.fail(
                "a batch replacing everything with \(other) = 7 left \(afterReplace.keys.sorted()) "
                    + "(\(afterReplace[other].described))"
            )
        }

        // Only the two accepted batches may have been announced: seed, then accepted, then replace.
        let marker = PropertyListValue.string(UUID().uuidString)
        subject.apply(DefaultsBatch(writes: ["conformance.batch.marker": marker]), "a marker")
        _ = await recorder.waitFor(key: "conformance.batch.marker", value: marker, within: subject.patience)
        var model: [String: PropertyListValue] = [:]
        var announced: [DefaultsStoreChange] = []
        for batch in [DefaultsBatch(writes: seed.mapValues { $0 }), accepted, replace] {
            announced += batch.apply(to: &model) ?? []
        }
        let heard = recorder.changes.filter { $0.key != "conformance.batch.marker" }
        let unexpected = heard.filter { change in !announced.contains { $0.isIdentical(to: change) } }
        if !unexpected.isEmpty {
            subject.fail(
                "changes were announced that no applied batch made (a refused batch announced?): "
                    + unexpected.map(\.described).joined(separator: ", ")
            )
        }
    }

    /// `modify` is exact under contention: 8 threads, each with its own adapter, each incrementing one counter
    /// up to 200 times (fewer on a slow store: the check stops starting increments after half a second),
    /// leave exactly as many increments as succeeded, and every increment returns a different count.
    ///
    /// `modify` stores its result with a batch that expects the value it read, so this holds when the store
    /// checks expectations and applies writes in one atomic step.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.exactModify.run(on: { MyStore() })
    /// ```
    public static let exactModify = Self(
        "exact modify",
        promise: "concurrent modify calls lose no update"
    ) { subject in
        let threads = 8
        let deadline = ContinuousClock.now + workBudget
        let counter = "conformance.counter"
        let results = Guarded<[Int]>([])
        let errors = Guarded<[String]>([])
        await onThreads(threads) { _ in
            let adapter = subject.adapter()
            var mine: [Int] = []
            mine.reserveCapacity(200)
            for round in 0..<200 where round < 5 || ContinuousClock.now < deadline {
                do {
                    mine.append(try adapter.modify(\.counter) { $0 += 1 })
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
            results.withLock { $0 += mine }
        }
        let thrown = errors.withLock { $0 }
        if let first = thrown.first {
            subject.fail("modify threw \(thrown.count) times, first: \(first)")
        }
        let counts = results.withLock { $0 }
        let stored = subject.store.value(forKey: counter)
        if !stored.isIdentical(to: .integer(Int64(counts.count))) {
            subject.fail(
                "\(threads) threads incremented a counter \(counts.count) times in all with modify; the store holds "
                    + "\(stored.described)"
            )
        }
        let duplicates = counts.count - Set(counts).count
        if duplicates > 0 {
            subject.fail("\(duplicates) modify calls returned a count another call had returned too (lost updates)")
        }
    }

    /// Each change is announced once, in order, with its old and new value: through
    /// `observeStoredValues`, N writes that change a value give exactly N changes, and a write of the value
    /// already stored (bit for bit) gives none; `-0.0` to `0.0` and `"é"` to `"e\u{301}"` are changes.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.changesReportedOnce.run(on: { MyStore() })
    /// ```
    public static let changesReportedOnce = Self(
        "changes reported once",
        promise: "every change is announced once, in order, with its old and new values"
    ) { subject in
        let adapter = subject.adapter()
        let recorder = ChangeRecorder(adapter)
        defer { recorder.stop() }
        let number = Key<Int?>("conformance.changes.number")
        let text = Key<PropertyListValue?>("conformance.changes.text")
        let real = Key<PropertyListValue?>("conformance.changes.real")
        let nested = Key<PropertyListValue?>("conformance.changes.nested")
        let nestedValue = PropertyListValue.dictionary(["list": .array([.double(-0.0), .string("")])])
        var expected: [DefaultsStoreChange] = []
        func expect(_ key: String, _ old: PropertyListValue?, _ new: PropertyListValue?) {
            expected.append(DefaultsStoreChange(key: key, oldValue: old, newValue: new))
        }
        do {
            try adapter.set(1, for: number)
            expect(number.name, nil, .integer(1))
            try adapter.set(.string(ValueProbe.precomposed), for: text)
            expect(text.name, nil, .string(ValueProbe.precomposed))
            try adapter.set(2, for: number)
            expect(number.name, .integer(1), .integer(2))
            try adapter.set(2, for: number)  // the same value: no change
            try adapter.set(.string(ValueProbe.decomposed), for: text)
            expect(text.name, .string(ValueProbe.precomposed), .string(ValueProbe.decomposed))
            try adapter.set(.double(-0.0), for: real)
            expect(real.name, nil, .double(-0.0))
            try adapter.set(.double(0.0), for: real)
            expect(real.name, .double(-0.0), .double(0.0))
            try adapter.set(.double(0.0), for: real)  // the same value: no change
            try adapter.set(nestedValue, for: nested)
            expect(nested.name, nil, nestedValue)
            try adapter.set(nestedValue, for: nested)  // the same value: no change
            adapter.reset(number)
            expect(number.name, .integer(2), nil)
            adapter.reset(number)  // nothing to remove: no change
            try adapter.modify(\.counter) { $0 += 1 }
            expect("conformance.counter", nil, .integer(1))
            try adapter.modifyStoredValues { $0[number.name] = .integer(9) }
            expect(number.name, nil, .integer(9))
            try await adapter.flush()  // a flush changes nothing
        } catch {
            subject.fail("a write through the adapter threw \(error)")
        }
        let marker = PropertyListValue.string(UUID().uuidString)
        do {
            try adapter.set(marker, for: Key<PropertyListValue?>("conformance.changes.marker"))
        } catch {
            subject.fail("writing a marker threw \(error)")
        }
        if !(await recorder.waitFor(key: "conformance.changes.marker", value: marker, within: subject.patience)) {
            subject.fail("a write was not announced within \(subject.patience)")
        }
        let heard = recorder.changes.filter { $0.key != "conformance.changes.marker" }
        compare(heard: heard, expected: expected, subject: subject, ordered: true)
    }

    /// Removing everything announces each removed key once, with its old value, and leaves the store empty.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.removeAllReportsEachKey.run(on: { MyStore() })
    /// ```
    public static let removeAllReportsEachKey = Self(
        "removeAll reports each key",
        promise: "removeAll announces every key it removes, once each"
    ) { subject in
        let adapter = subject.adapter()
        let seed: [String: PropertyListValue] = Dictionary(
            uniqueKeysWithValues: (0..<5).map { ("conformance.removeAll.\($0)", PropertyListValue.integer(Int64($0))) }
        )
        subject.apply(DefaultsBatch(writes: seed.mapValues { $0 }), "the values to remove")
        try? await adapter.flush()
        let before = subject.store.snapshot()
        let recorder = ChangeRecorder(adapter)
        defer { recorder.stop() }
        adapter.removeAll()
        let after = subject.store.snapshot()
        if !after.isEmpty {
            subject.fail(
                "removeAll() left \(after.count) keys: \(after.keys.sorted().prefix(10).joined(separator: ", "))"
            )
        }
        let marker = PropertyListValue.string(UUID().uuidString)
        subject.apply(DefaultsBatch(writes: ["conformance.removeAll.marker": marker]), "a marker")
        if !(await recorder.waitFor(key: "conformance.removeAll.marker", value: marker, within: subject.patience)) {
            subject.fail("a write was not announced within \(subject.patience)")
        }
        let heard = recorder.changes.filter { $0.key != "conformance.removeAll.marker" }
        let expected = before.map { DefaultsStoreChange(key: $0.key, oldValue: $0.value, newValue: nil) }
        compare(heard: heard, expected: expected, subject: subject, ordered: false)
    }

    /// After a flush, what is durable holds every value written, bit for bit, and none removed.
    ///
    /// What `durableValues` reads is compared; `modify` must be durable when it returns, without a flush.
    /// Skipped without `durableValues`.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.flushIsDurable.run(
    ///     on: { try FileStore.suite(UUID().uuidString, directory: directory) },
    ///     durableValues: { store in try readPropertyList(at: store.fileURL!) }
    /// )
    /// ```
    public static let flushIsDurable = Self(
        "flush is durable",
        promise: "after flush, what is durable holds every value exactly"
    ) { subject in
        guard let durableValues = subject.durableValues else { return }
        func durable(_ when: String) -> [String: PropertyListValue]? {
            do {
                return try durableValues()
            } catch {
                subject.fail("reading the durable values \(when) threw \(error)")
                return nil
            }
        }
        let adapter = subject.adapter(.coalesced)
        for probe in ValueProbe.catalogue {
            do {
                try probe.write(adapter)
            } catch {
                subject.fail("writing \(probe.key) threw \(error)")
            }
        }
        do {
            try await adapter.flush()
        } catch {
            subject.fail("flush() threw \(error)")
        }
        guard let afterFlush = durable("after a flush") else { return }
        for probe in ValueProbe.catalogue where !afterFlush[probe.key].isIdentical(to: probe.stored) {
            subject.fail(
                "\(probe.key) was written as \(probe.stored.described) and flushed; the durable values hold "
                    + afterFlush[probe.key].described
            )
        }

        let removed = ValueProbe.catalogue.prefix(3).map(\.key)
        for key in removed { adapter.reset(Key<PropertyListValue?>(key)) }
        do {
            try await adapter.flush()
        } catch {
            subject.fail("flush() after removals threw \(error)")
        }
        if let afterRemoval = durable("after removals and a flush") {
            for key in removed where afterRemoval[key] != nil {
                subject.fail(
                    "\(key) was removed and flushed; the durable values still hold \(afterRemoval[key].described)"
                )
            }
        }

        do {
            try adapter.modify(\.counter) { $0 = 42 }
        } catch {
            subject.fail("modify threw \(error)")
        }
        if let afterModify = durable("after modify"),
            !afterModify["conformance.counter"].isIdentical(to: .integer(42))
        {
            subject.fail(
                "modify set conformance.counter to 42, which it must make durable before returning; the durable "
                    + "values hold \(afterModify["conformance.counter"].described)"
            )
        }
    }

    /// Another process's changes reach this one: they become readable and are announced once each.
    ///
    /// Values written with `writeAsAnotherProcess` must be read through the store and announced with their old
    /// and new values. Skipped without `writeAsAnotherProcess`.
    ///
    /// ```swift
    /// try await DefaultsStoreConformance.Check.externalChangesReported.run(
    ///     on: { FaultyStore() },
    ///     writeAsAnotherProcess: { store, values in store.simulateExternalChange(values) }
    /// )
    /// ```
    public static let externalChangesReported = Self(
        "external changes reported",
        promise: "another process's changes become readable and are announced once each"
    ) { subject in
        guard let writeAsAnotherProcess = subject.writeAsAnotherProcess else { return }
        let adapter = subject.adapter()
        let kept = "conformance.external.kept"
        let added = "conformance.external.added"
        do {
            try adapter.set(.integer(1), for: Key<PropertyListValue?>(kept))
            try await adapter.flush()
        } catch {
            subject.fail("writing \(kept) threw \(error)")
        }
        let recorder = ChangeRecorder(adapter)
        defer { recorder.stop() }
        let written: [String: PropertyListValue] = [kept: .integer(2), added: .string(ValueProbe.decomposed)]
        do {
            try writeAsAnotherProcess(written)
        } catch {
            return subject.fail("writeAsAnotherProcess threw \(error)")
        }
        let readable = await eventually(within: subject.patience) {
            written.allSatisfy { subject.store.value(forKey: $0.key).isIdentical(to: $0.value) }
        }
        if !readable {
            let held = written.keys.sorted().map { "\($0) = \(subject.store.value(forKey: $0).described)" }
            subject.fail(
                "another process wrote \(kept) = 2 and \(added); after \(subject.patience) the store reads "
                    + held.joined(separator: ", ")
            )
        }
        let expected = [
            DefaultsStoreChange(key: kept, oldValue: .integer(1), newValue: .integer(2)),
            DefaultsStoreChange(key: added, oldValue: nil, newValue: .string(ValueProbe.decomposed)),
        ]
        _ = await eventually(within: subject.patience) {
            let heard = recorder.changes
            return expected.allSatisfy { change in heard.contains { $0.isIdentical(to: change) } }
        }
        let marker = PropertyListValue.string(UUID().uuidString)
        do {
            try adapter.set(marker, for: Key<PropertyListValue?>("conformance.external.marker"))
        } catch {
            subject.fail("writing a marker threw \(error)")
        }
        _ = await recorder.waitFor(key: "conformance.external.marker", value: marker, within: subject.patience)
        let heard = recorder.changes.filter { $0.key != "conformance.external.marker" }
        compare(heard: heard, expected: expected, subject: subject, ordered: false)
    }

    /// How long the concurrent checks keep starting new work: long enough for thousands of operations on a
    /// store in memory and hundreds on a durable one, short enough to keep the kit quick.
    static let workBudget: Duration = .milliseconds(500)

    /// Records a failure for every change missing from `heard`, announced more than once, announced that
    /// should not be, or (when `ordered`) announced out of order.
    private static func compare(
        heard: [DefaultsStoreChange],
        expected: [DefaultsStoreChange],
        subject: DefaultsStoreConformance.Subject,
        ordered: Bool
    ) {
        var unmatched = heard
        var missing: [DefaultsStoreChange] = []
        for change in expected {
            if let index = unmatched.firstIndex(where: { $0.isIdentical(to: change) }) {
                unmatched.remove(at: index)
            } else {
                missing.append(change)
            }
        }
        for change in missing {
            let sameKey = heard.filter { $0.key == change.key }
            let instead = sameKey.isEmpty ? "" : "; heard instead: " + sameKey.map(\.described).joined(separator: ", ")
            subject.fail("not announced: \(change.described)\(instead)")
        }
        for change in unmatched {
            let repeated = expected.contains { $0.isIdentical(to: change) }
            subject.fail(
                repeated
                    ? "announced more than once: \(change.described)"
                    : "announced: \(change.described), which did not happen"
            )
        }
        if ordered, missing.isEmpty, unmatched.isEmpty, !zip(heard, expected).allSatisfy({ $0.isIdentical(to: $1) }) {
            subject.fail(
                "changes were announced out of order: "
                    + heard.map(\.described).joined(separator: ", ")
            )
        }
    }
}

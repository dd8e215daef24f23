import StoreKitLite
import Testing

struct SaveOptionTests {
    @Test(arguments: [
        (SaveOption.dontSave, 0, false), (.dontSave, 2, false),
        (.saveCurrentOnly, 0, true), (.saveCurrentOnly, 1, false),
        (.saveAndPersist, 0, true), (.saveAndPersist, 3, true),
    ])
    func onlyTheDocumentedOptionsReachTheStore(option: SaveOption, depth: Int, reaches: Bool) {
        #expect(option.reachesStore(fromDepth: depth) == reaches)
    }

    @Test func onlySaveAndPersistCarriesOnToTheParent() {
        #expect(SaveOption.dontSave.parentOption == nil)
        #expect(SaveOption.saveCurrentOnly.parentOption == nil)
        #expect(SaveOption.saveAndPersist.parentOption == .saveAndPersist)
    }

    @Test func descriptionsUseTheSeedNames() {
        #expect(SaveOption.allCases.map(\.description) == ["dontSave", "saveCurrentOnly", "saveAndPersist"])
    }
}

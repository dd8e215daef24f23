import FleetClient
import Foundation
import RequestKit
import ServiceModules
import StoreKitLite
import StoreKitLiteTesting
import Testing

// Internal initializers are part of the template too: the tests make one error of every code with them.
@testable import FleetServer
@testable import LocatorKit
@testable import ModelKit
@testable import ServiceShapes

/// The template of docs/public-api.md, as a protocol: each public error type conforms below, and the conformance
/// compiles only while the type has the template's members.
protocol TemplateCode: CaseIterable, Hashable, CustomStringConvertible, Sendable {
    /// The code's identifier, camelCase.
    var name: String { get }
}

protocol TemplateError: Error, CustomStringConvertible {
    associatedtype Code: TemplateCode
    var code: Code { get }
    var shortDescription: String { get }
    /// An error of `code` made with the template's initializer, `init(_ code: Code, …)`, with context far longer
    /// than any description may be.
    static func sample(_ code: Code) -> Self
}

/// A context string much longer than any description may be.
private let long = String(repeating: "context ", count: 1_250)

/// An error to pass as `underlying`.
private struct Cause: Error, CustomStringConvertible {
    var description: String { long }
}

extension VersioningError.Code: TemplateCode {}
extension VersioningError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, detail: long) }
}
extension JSONParseError.Code: TemplateCode {}
extension JSONParseError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, offset: 0, line: 1, column: 1, expected: long, found: long) }
}
extension ValidationError.Code: TemplateCode {}
extension ValidationError: TemplateError {
    static func sample(_ code: Code) -> Self {
        Self(code, failures: Array(repeating: ValidationFailure(path: long, message: long), count: 100))
    }
}
extension ModelDecodingError.Code: TemplateCode {}
extension ModelDecodingError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, path: long, expected: long, found: long) }
}
extension ModelIDError.Code: TemplateCode {}
extension ModelIDError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, text: long) }
}
extension MIMETypeError.Code: TemplateCode {}
extension MIMETypeError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, offset: 0, expected: long, input: long) }
}
extension LocatorError.Code: TemplateCode {}
extension LocatorError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code) }
}
extension RequestKitError.Code: TemplateCode {}
extension RequestKitError: TemplateError {
    static func sample(_ code: Code) -> Self {
        Self(code, subject: long, reason: long, operation: long, status: 500, underlying: Cause())
    }
}
extension TLSVerificationError.Code: TemplateCode {}
extension TLSVerificationError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, host: long, detail: long) }
}
extension StoreError.Code: TemplateCode {}
extension StoreError: TemplateError {
    static func sample(_ code: Code) -> Self {
        Self(
            code,
            entity: long,
            records: Array(repeating: UUID(), count: 100),
            detail: long,
            reason: long,
            underlying: Cause()
        )
    }
}
extension ConformanceFailure.Code: TemplateCode {}
extension ConformanceFailure: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, long) }
}
extension ServiceLookupError.Code: TemplateCode {}
extension ServiceLookupError: TemplateError {
    static func sample(_ code: Code) -> Self {
        Self(code, serviceType: Int.self, name: long, suggestions: [long, long, long, long], underlying: Cause())
    }
}
extension ModuleConfigurationError.Code: TemplateCode {}
extension ModuleConfigurationError: TemplateError {
    static func sample(_ code: Code) -> Self {
        Self(code, problems: Array(repeating: long, count: 100), underlying: Cause())
    }
}
extension FleetError.Code: TemplateCode {}
extension FleetError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, long, underlying: Cause()) }
}
extension StartupError.Code: TemplateCode {}
extension StartupError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, subject: long, message: long) }
}
extension ConfigurationError.Code: TemplateCode {}
extension ConfigurationError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, long, source: .flag("--port")) }
}
extension FleetClientError.Code: TemplateCode {}
extension FleetClientError: TemplateError {
    static func sample(_ code: Code) -> Self { Self(code, message: long, status: 500, underlying: Cause()) }
}

/// One public error type, for the parameterised tests.
struct ErrorType: Sendable, CustomStringConvertible {
    let description: String
    /// Each code's name, its description, and the description, short description and code of an error made with it.
    let codes: @Sendable () -> [(name: String, codeDescription: String, error: String, short: String, matches: Bool)]

    init<E: TemplateError>(_ type: E.Type) {
        description = String(describing: type)
        codes = {
            E.Code.allCases.map { code in
                let error = E.sample(code)
                return (code.name, code.description, error.description, error.shortDescription, error.code == code)
            }
        }
    }
}

@Suite("Every public error follows the one template")
struct ErrorTemplateTests {
    static let types: [ErrorType] = [
        ErrorType(VersioningError.self), ErrorType(JSONParseError.self), ErrorType(ValidationError.self),
        ErrorType(ModelDecodingError.self), ErrorType(ModelIDError.self), ErrorType(MIMETypeError.self),
        ErrorType(LocatorError.self), ErrorType(RequestKitError.self), ErrorType(TLSVerificationError.self),
        ErrorType(StoreError.self), ErrorType(ConformanceFailure.self), ErrorType(ServiceLookupError.self),
        ErrorType(ModuleConfigurationError.self), ErrorType(FleetError.self), ErrorType(StartupError.self),
        ErrorType(ConfigurationError.self), ErrorType(FleetClientError.self),
    ]

    /// The longest description any error may have, whatever its context.
    static let descriptionLimit = 2_000

    @Test("every code has a unique camelCase name, and its description is that name", arguments: types)
    func codeNames(_ type: ErrorType) {
        let codes = type.codes()
        #expect(!codes.isEmpty)
        #expect(Set(codes.map(\.name)).count == codes.count, "names are unique")
        for code in codes {
            let isCamelCase =
                code.name.first?.isLowercase == true
                && code.name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            #expect(isCamelCase, "\(code.name) is camelCase")
            #expect(code.codeDescription == code.name)
        }
    }

    @Test(
        "an error made with init(_ code:, …) keeps its code, and shortDescription is the code's name",
        arguments: types
    )
    func initializerAndShortDescription(_ type: ErrorType) {
        for code in type.codes() {
            #expect(code.matches, "\(type).\(code.name)")
            #expect(code.short == code.name)
        }
    }

    @Test(
        "description is for people: not empty, not the bare code name, and bounded whatever the context",
        arguments: types
    )
    func descriptionRule(_ type: ErrorType) {
        for code in type.codes() {
            #expect(!code.error.isEmpty)
            #expect(code.error != code.name)
            #expect(code.error.count <= Self.descriptionLimit, "\(type).\(code.name): \(code.error.count) characters")
        }
    }
}

import Foundation
import HTTPTypes
import RequestKit
import RequestKitTesting
import Testing

struct ResponseValidationTests {
    @Test func theDefaultAcceptsEvery2xxStatusAndAnyContentType() async throws {
        // The server answers with the status its path names.
        try await withClient(handler: { request in
            TestResponse(status: Int(request.path.dropFirst()) ?? 500)
        }) { client, _ in
            for status in [200, 204, 299] {
                let response = try await client.get("\(status)")
                #expect(response.status.code == status)
            }
            for status in [300, 404, 500] {
                let error = await #expect(throws: RequestKitError.self) { try await client.get("\(status)") }
                #expect(error?.code == .unacceptableStatus)
            }
        }
        #expect(ResponseValidation().acceptableStatusCodes == [200...299])
        #expect(ResponseValidation.successStatus.acceptableStatusCodes == ResponseValidation.successCodes)
        #expect(ResponseValidation().acceptableContentTypes == nil)
    }

    @Test func statusCodesGivenOrSetReplaceTheDefault() {
        var validation = ResponseValidation(acceptableStatusCodes: [200...201, 404...404])
        #expect(validation.acceptableStatusCodes == [200...201, 404...404])
        validation.acceptableStatusCodes = [304...304]
        #expect(validation.acceptableStatusCodes == [304...304])
        validation.acceptableStatusCodes = ResponseValidation.successCodes
        #expect(validation.acceptableStatusCodes == [200...299])
    }
}

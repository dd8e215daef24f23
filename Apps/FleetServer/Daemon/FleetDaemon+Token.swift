import Foundation
public import Logging

extension FleetDaemon {
    /// The configured token, or the one in the token file, or a new random one written to the token file (mode
    /// 0600) so that a `fleet` on the same machine can read it.
    public static func resolveToken(_ configuration: FleetConfiguration, logger: Logger) throws -> String {
        if let token = configuration.token { return token }
        let path = configuration.tokenFilePath
        if let data = FileManager.default.contents(atPath: path) {
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if token.count >= 8 { return token }
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined()
        let created = FileManager.default.createFile(
            atPath: path,
            contents: Data((token + "\n").utf8),
            attributes: [.posixPermissions: 0o600]
        )
        guard created else {
            throw ConfigurationError(
                .unwritableTokenFile,
                "cannot write the token file \(path); give a token with --token or FLEETD_TOKEN"
            )
        }
        logger.notice("generated a bearer token for writes", metadata: ["fleetd.token_file": "\(path)"])
        return token
    }
}

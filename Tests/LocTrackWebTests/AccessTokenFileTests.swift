import Glibc
import LocTrackProcess
import LocTrackWeb
import Testing

/// `--token-file`: the first line, trimmed, of a file only its owner may read (docs/http.md, Access).
@Suite struct AccessTokenFileTests {
    @Test("given a token file whose first line is the token when loaded then the token is that line without blanks",
          arguments: ["s3cret-Token+/=\n", "s3cret-Token+/=", "  s3cret-Token+/=\t\r\nsecond line\n", "s3cret-Token+/=\r\n"])
    func loads(contents: String) throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write(contents, to: "token", mode: 0o600)
        #expect(try AccessToken.load(from: file) == Fixture.token)
    }

    @Test("given a token file that group or others may read or write when loaded then it is refused with chmod 600 and exit 78",
          arguments: [0o640, 0o604, 0o620, 0o602, 0o644, 0o666, 0o601, 0o610])
    func looseModes(mode: Int) throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("s3cret\n", to: "token", mode: UInt32(mode))
        let error = try #require(throws: AccessToken.LoadError.self) { try AccessToken.load(from: file) }
        #expect(error.description.contains(file) && error.description.contains("chmod 600"))
        #expect(error.description.contains("mode " + String(mode, radix: 8)))
        #expect(error.exitCode == .configuration)
        #expect(ExitCode.configuration.rawValue == 78)
    }

    @Test func givenAnOwnerOnlyFileWithoutWriteWhenLoadedThenItIsAccepted() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("s3cret-Token+/=\n", to: "token", mode: UInt32(0o400))
        #expect(try AccessToken.load(from: file) == Fixture.token)
    }

    @Test("given a token file without a token when loaded then it says so",
          arguments: ["", "\n", "   \nsecond\n", "\t\r\n"])
    func empty(contents: String) throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write(contents, to: "token", mode: 0o600)
        let error = try #require(throws: AccessToken.LoadError.self) { try AccessToken.load(from: file) }
        #expect(error.description == "the token file \(file) has no token: its first line is empty")
    }

    @Test("given a token with a byte a cookie cannot hold when loaded then it is refused",
          arguments: ["two words", "semi;colon", "com,ma", "quo\"te", "back\\slash", "ümlaut", "bell\u{07}"])
    func unusable(contents: String) throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write(contents + "\n", to: "token", mode: 0o600)
        let error = try #require(throws: AccessToken.LoadError.self) { try AccessToken.load(from: file) }
        #expect(error.description.hasPrefix("the token in \(file) holds"))
    }

    @Test func givenNoFileWhenLoadedThenItNamesTheFileAndTheSystemsReason() throws {
        let folder = try TemporaryDirectory()
        let error = try #require(throws: AccessToken.LoadError.self) { try AccessToken.load(from: folder.path + "/missing") }
        #expect(error.description == "cannot read the token file \(folder.path)/missing: No such file or directory")
        #expect(!error.description.contains("\n"))
    }

    @Test func givenAFolderOrADeviceWhenLoadedThenItIsNotATokenFile() throws {
        let folder = try TemporaryDirectory()
        let error = try #require(throws: AccessToken.LoadError.self) { try AccessToken.load(from: folder.path) }
        #expect(error.description == "the token file \(folder.path) is not a regular file")
        #expect(throws: AccessToken.LoadError.self) { try AccessToken.load(from: "/dev/null") }
    }

    @Test func givenAFileLargerThan64KiBWhenLoadedThenItIsRefused() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("token\n" + String(repeating: "x", count: 70_000), to: "token", mode: 0o600)
        let error = try #require(throws: AccessToken.LoadError.self) { try AccessToken.load(from: file) }
        #expect(error.description.contains("larger than 64 KiB"))
    }

    @Test(.enabled(if: getuid() != 0, "root reads every file"))
    func givenAFileItsOwnerMayNotReadWhenLoadedThenItIsRefused() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("s3cret\n", to: "token", mode: UInt32(0o200))
        let error = try #require(throws: AccessToken.LoadError.self) { try AccessToken.load(from: file) }
        #expect(error.description == "cannot read the token file \(file): Permission denied")
    }
}

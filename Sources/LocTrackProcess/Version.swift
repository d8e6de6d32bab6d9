/// loctrack's version: what `loctrack --version` prints, Home Assistant's device shows and
/// `loctrack serve`'s `/api/config` reports. The Makefile reads it from this line.
public enum LocTrackVersion {
    public static let number = "0.1.0"
}

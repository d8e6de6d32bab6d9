import Glibc

// The C library's math functions the geometry needs (geofences, distances), so that
// the results stay glibc's, bit for bit.

/// The cosine of `x` radians. The C function is `cos(3)`.
package func cos(_ x: Double) -> Double { Glibc.cos(x) }

/// The sine of `x` radians. The C function is `sin(3)`.
package func sin(_ x: Double) -> Double { Glibc.sin(x) }

/// The angle of the point (`x`, `y`) in radians, in -π...π. The C function is `atan2(3)`.
package func atan2(_ y: Double, _ x: Double) -> Double { Glibc.atan2(y, x) }

/// The square root of `x`. The C function is `sqrt(3)`.
package func sqrt(_ x: Double) -> Double { Glibc.sqrt(x) }

/// The arc tangent of `x`, in radians. The C function is `atan(3)`.
package func atan(_ x: Double) -> Double { Glibc.atan(x) }

/// The hyperbolic sine of `x`. The C function is `sinh(3)` (Web Mercator's latitudes).
package func sinh(_ x: Double) -> Double { Glibc.sinh(x) }

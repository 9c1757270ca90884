import EddyResources

/// The serving side of the homes, one per loop: where a request for a resource is answered.
package typealias Homes = LoopHomes<Home>

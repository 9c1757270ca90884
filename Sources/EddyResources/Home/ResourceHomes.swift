/// The homes of the resources, one per loop: what downloads, prefetch and the admin API reach.
package typealias ResourceHomes = LoopHomes<ResourceHome>

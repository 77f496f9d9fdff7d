// A load about to make its documents visible and change LINK edges: held
// counts wrong until load/meta (Meta.held_load -1, read/meta's interrupted),
// and the load's history and link statistics as load/meta will write them,
// kept beside the store's, so that the load that finishes this one if it is
// killed (load/interrupted_counted) records it as load/meta would have
MATCH (m:Meta {key: 'graphprum'})
SET m.held_load = -1, m.pending_loads = $loads, m.pending_link_stats = $link_stats

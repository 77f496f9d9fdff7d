// After a load killed between making its documents visible and writing
// load/meta (Meta.held_load -1): its LINK edges made and every held count made
// again (the caller), it counts as a load, so that the next one's link order
// (lseq) starts past the links it wrote, with the history and link statistics
// it left (load/pending; none from a graphprum before them)
MATCH (m:Meta {key: 'graphprum'})
WITH m, coalesce(m.load_count, 0) + 1 AS loads
SET m.load_count = loads, m.held_load = loads,
    m.loads = coalesce(m.pending_loads, m.loads),
    m.link_stats = coalesce(m.pending_link_stats, m.link_stats),
    m.pending_loads = null, m.pending_link_stats = null

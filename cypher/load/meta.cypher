// Store-level facts (recent load history as JSON, link statistics, number of
// loads); held_load: the load after which every unit's held link count was
// right (load/held.cypher; a load by an earlier graphprum leaves it behind)
MERGE (m:Meta {key: 'graphprum'})
SET m.format = $format, m.loads = $loads, m.link_stats = $link_stats,
    m.load_count = $load_count, m.held_load = $load_count,
    m.pending_loads = null, m.pending_link_stats = null

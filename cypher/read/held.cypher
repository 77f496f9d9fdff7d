// Whether every unit keeps its count of the links held in its subtree: the
// store's load count and the load after which the counts were made
// (read/meta.cypher's, without the values FalkorDB's Redis port rounds)
MATCH (m:Meta {key: 'graphprum'})
RETURN m.load_count AS load_count, m.held_load AS held_load

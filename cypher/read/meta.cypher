MATCH (m:Meta {key: 'graphprum'})
RETURN m.loads AS loads, m.link_stats AS link_stats, m.load_count AS load_count,
       m.writer AS writer, m.beat AS beat, m.held_load AS held_load,
       m.pending_loads AS pending_loads

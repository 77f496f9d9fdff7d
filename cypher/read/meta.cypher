MATCH (m:Meta {key: 'graphprum'})
RETURN m.loads AS loads, m.link_stats AS link_stats

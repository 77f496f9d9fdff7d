MATCH (m:Meta {key: 'graphprum'})
RETURN m.load_count AS n

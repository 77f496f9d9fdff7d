// Store-level facts (recent load history as JSON, link statistics, number of loads)
MERGE (m:Meta {key: 'graphprum'})
SET m.format = $format, m.loads = $loads, m.link_stats = $link_stats,
    m.load_count = $load_count

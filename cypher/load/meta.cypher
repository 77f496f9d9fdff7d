// Store-level facts (load history, link statistics) on one Meta node
MERGE (m:Meta {key: 'graphprum'})
SET m.format = $format, m.loads = $loads, m.link_stats = $link_stats

// A running load says it is alive
MATCH (m:Meta {key: 'graphprum'})
WHERE m.writer = $writer
SET m.beat = $now

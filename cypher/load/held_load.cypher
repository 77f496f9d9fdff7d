// Every unit's held link count is right as of the store's last load (their
// counts made again by a load or load --resume that found them wrong)
MATCH (m:Meta {key: 'graphprum'})
SET m.held_load = m.load_count

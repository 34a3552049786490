-- Dashboard: each seat's tiles where the hand ended, for the hands picked by $game_ids and $hand_nos (compact notation).
WITH picked AS (
    SELECT
        unnest(CAST($game_ids AS VARCHAR[])) AS game_id,
        unnest(CAST($hand_nos AS INTEGER[])) AS hand_no
)
SELECT t.game_id, t.hand_no, t.seat, t.concealed, t.melds, t.discards, t.win_tile
FROM picked
JOIN hand_tiles AS t USING (game_id, hand_no)
ORDER BY t.game_id, t.hand_no, t.seat

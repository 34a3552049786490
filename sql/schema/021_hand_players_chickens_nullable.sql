-- The chicken columns of hand_players may be NULL: a family without chickens has none to count, and averages leave its hands out.
ALTER TABLE hand_players ALTER COLUMN chickens_standing DROP NOT NULL;        -- chickens the seat was paid for, by kind, as settled: 常鸡 standing; NULL for a family without chickens
ALTER TABLE hand_players ALTER COLUMN chickens_flipped DROP NOT NULL;         -- 翻鸡 flipped; NULL for a family without chickens
ALTER TABLE hand_players ALTER COLUMN chickens_gold DROP NOT NULL;            -- 金鸡 gold; NULL for a family without chickens
ALTER TABLE hand_players ALTER COLUMN chickens_charging DROP NOT NULL;        -- 冲锋鸡 charging; NULL for a family without chickens
ALTER TABLE hand_players ALTER COLUMN chickens_responsibility DROP NOT NULL;  -- 责任鸡 responsibility (counted for the claimer); NULL for a family without chickens

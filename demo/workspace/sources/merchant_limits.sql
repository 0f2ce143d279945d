-- pay.merchant_limits as of 2026-11-27 (from `SHOW CREATE TABLE`, collected by clinic-collector)
CREATE TABLE `merchant_limits` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `merchant_id` varchar(32) NOT NULL,
  `limit_amount` decimal(18,2) NOT NULL,
  `daily_cap` decimal(18,2) NOT NULL,
  `currency` char(3) NOT NULL DEFAULT 'CNY',
  `updated_at` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`id`) /*T![clustered_index] CLUSTERED */
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
-- note: no index on merchant_id

/**
 * The report's token estimators by id (`?estimator=`, `--estimator`). A module of its own, with
 * no dependency, so that the CLI can list them in its help without loading the wire's schemas.
 */
export const ESTIMATORS = ['bpe', 'chars4'] as const;
export type EstimatorId = (typeof ESTIMATORS)[number];

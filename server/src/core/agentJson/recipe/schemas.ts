/**
 * The recipe-build tool schemas the recipe helpers read at runtime (op names, required fields,
 * oneOf branches). They are ToonLens's own copies in `schemas/`, the same files the schema pass
 * validates against, so completions and branch matching never drift from validation.
 */
import recipeInput from '../../../../../schemas/recipe-input.v1.json';
import recipeOutput from '../../../../../schemas/recipe-output.v1.json';

/** JSON Schema of update_recipe_build arguments (draft-07). */
export const RECIPE_INPUT_SCHEMA: unknown = recipeInput;
/** JSON Schema of review_recipe_build results (draft-07, a five-branch oneOf). */
export const RECIPE_OUTPUT_SCHEMA: unknown = recipeOutput;

// An app imports StrataModels alone: the engine and Observation (whose registrar the
// macros' expansions name) come with it.
@_exported import Observation
@_exported import Strata

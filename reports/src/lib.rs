//! shardlab outputs.

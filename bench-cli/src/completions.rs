//! `shardlab completions SHELL` and `shardlab man [SUBCOMMAND]`: shell completions and roff
//! man pages generated from the command-line definitions, so they never disagree with
//! `--help`.

use std::io::Write;

use anyhow::Result;
use clap::CommandFactory;

use crate::usage::usage;

/// Options of `shardlab completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Options of `shardlab man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// A subcommand whose page to print (`run` gives shardlab-run(1)); without it, shardlab(1).
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

/// Examples of `shardlab completions`.
pub const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  source <(shardlab completions bash)                  # this bash session
  shardlab completions bash > ~/.local/share/bash-completion/completions/shardlab
  shardlab completions zsh > ~/.zfunc/_shardlab        # with fpath+=~/.zfunc
  shardlab completions fish > ~/.config/fish/completions/shardlab.fish";

/// Examples of `shardlab man`.
pub const MAN_EXAMPLES: &str = "\
Examples:
  shardlab man | man -l -
  shardlab man run > shardlab-run.1
  for c in '' run plan route; do shardlab man $c > shardlab${c:+-$c}.1; done";

/// Prints the completion script of `args.shell` on standard output.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    let mut command = crate::command::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "shardlab", &mut out);
    std::io::stdout().lock().write_all(&out)?;
    Ok(())
}

/// Prints the man page of `shardlab`, or of one subcommand (`shardlab-run(1)`), in roff.
pub fn man(args: &ManArgs) -> Result<()> {
    let mut command = crate::command::Cli::command();
    command.build();
    let page = match &args.subcommand {
        None => command,
        Some(name) => {
            let names: Vec<String> = command
                .get_subcommands()
                .map(|s| s.get_name().to_string())
                .collect();
            let sub = command.find_subcommand(name).cloned().ok_or_else(|| {
                usage(format!(
                    "'{name}' is not a subcommand; man pages: {}",
                    names.join(", ")
                ))
            })?;
            let full = format!("shardlab-{name}");
            sub.name(full.clone()).bin_name(full)
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    std::io::stdout().lock().write_all(&out)?;
    Ok(())
}

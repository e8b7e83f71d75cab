# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_wsl_place_global_optspecs
    string join \n color= no-color q/quiet h/help V/version
end

function __fish_wsl_place_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_wsl_place_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_wsl_place_using_subcommand
    set -l cmd (__fish_wsl_place_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c wsl-place -n "__fish_wsl_place_needs_command" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_needs_command" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -s q -l quiet -d 'Print nothing but errors (also after the command\'s name: `wsl-place check -q`)'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -s h -l help -d 'Print help'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -s V -l version -d 'Print version'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "check" -d 'Check where a repository lives and what that costs'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "survey" -d 'Check every git repository below a folder, one probe per mount, in one table'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "migrate" -d 'Copy the repository to the Linux disk, verified, and fix what moving breaks'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "probe" -d 'Measure small-file operation costs on a directory\'s mount'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "doctor" -d 'Say what wsl-place sees on this host, or write it down for a bug report'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "init" -d 'Print the shell hook that nudges you in a repository on a slow mount'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "hook" -d 'Install or remove a plain git pre-commit hook that runs `check --advisory`'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c wsl-place -n "__fish_wsl_place_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l scan-budget-ms -d 'Stop scanning a repository after this many milliseconds and extrapolate [default: 3000 for check; survey scans under --budget-ms unless this is given]' -r
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l baseline -d 'Directory on the Linux disk to compare against (default: a scratch folder under $HOME)' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l format -d 'Output format' -r -f -a "human\t'The report for a person.'
json\t'Every figure, for scripts (schema in docs/json.md).'
markdown\t'A summary table, e.g. for $GITHUB_STEP_SUMMARY.'
github\t'GitHub Actions annotations (::warning, ::notice).'"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l probe-budget-ms -d 'Most each probe may take, in milliseconds; in a repository it also stays under half of the `git status` it predicts' -r
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l fail-on -d 'Exit with code 1 when the verdict is at or above this level. With --advisory: a cached full verdict at or above it blocks; a first look (no cached result yet) blocks only when its whole range is at or above it, and otherwise its line says it did not block' -r -f -a "advise\t''
move\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l policy -d 'Policy file with the thresholds that turn measurements into a verdict (default: $WSL_PLACE_POLICY, else `policy` in ~/.config/wsl-place/config.toml, else .wsl-place.toml at the repository\'s root, else the built-in one)' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l no-probe -d 'Skip the timing probes; only locate and scan (never written to the hook\'s cache)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l fresh -d 'Judge on this run\'s measurements alone: no earlier checks\' figures (without it, check weighs the median of the last 5 checks here and says so beside every such figure), no cached probe figures, each package manager timed again. The result is still cached for later runs. survey always probes afresh and never weighs earlier checks; with it, survey times each package manager again too'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l exact -d 'Walk every file of the dependency trees: without it, a node_modules of more than 96 packages is priced from a sample of them (the report says so, and how close)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -s v -l verbose -d 'Show every figure on the human report: how the figures were measured, the per-file costs and the scan\'s details (the default keeps to what fits one 40-row screen)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l advisory -d 'Hook mode: reuse a cached result, print one line or nothing, finish in well under a second'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l verify -d 'After predicting, time the real `git status` here (`git --no-optional-locks status`, the median of 3 runs; nothing in the repository is written), show it beside the prediction and keep it in this machine\'s record of verified predictions'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -s q -l quiet -d 'Print nothing but errors; --advisory still prints its one line'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l scan-budget-ms -d 'Stop scanning a repository after this many milliseconds and extrapolate [default: 3000 for check; survey scans under --budget-ms unless this is given]' -r
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l baseline -d 'Directory on the Linux disk to compare against (default: a scratch folder under $HOME)' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l format -d 'Output format' -r -f -a "human\t'The report for a person.'
json\t'Every figure, for scripts (schema in docs/json.md).'
markdown\t'A summary table, e.g. for $GITHUB_STEP_SUMMARY.'
github\t'GitHub Actions annotations (::warning, ::notice).'"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l search-budget-ms -d 'Stop searching for repositories after this many milliseconds (the report says so)' -r
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l budget-ms -d 'Most the whole survey may take, in milliseconds: scans still running then stop and extrapolate, and the table marks their repositories' -r
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l probe-budget-ms -d 'Most each mount\'s probe may take, in milliseconds' -r
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l fail-on -d 'Exit with code 1 when the worst verdict is at or above this level' -r -f -a "advise\t''
move\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l policy -d 'Policy file for every repository (default: $WSL_PLACE_POLICY, else `policy` in ~/.config/wsl-place/config.toml, else each repository\'s .wsl-place.toml, else the built-in one)' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l no-probe -d 'Skip the timing probes; only locate and scan (never written to the hook\'s cache)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l fresh -d 'Judge on this run\'s measurements alone: no earlier checks\' figures (without it, check weighs the median of the last 5 checks here and says so beside every such figure), no cached probe figures, each package manager timed again. The result is still cached for later runs. survey always probes afresh and never weighs earlier checks; with it, survey times each package manager again too'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l exact -d 'Walk every file of the dependency trees: without it, a node_modules of more than 96 packages is priced from a sample of them (the report says so, and how close)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -s v -l verbose -d 'Show every figure on the human report: how the figures were measured, the per-file costs and the scan\'s details (the default keeps to what fits one 40-row screen)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -s q -l quiet -d 'Print nothing but errors'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand survey" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l to -d 'Destination directory (default: ~/src/<name>, or `destination` in ~/.config/wsl-place/config.toml)' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l format -d 'The plan and the result for a person, as JSON, as markdown, or as GitHub Actions annotations' -r -f -a "human\t'The report for a person.'
json\t'Every figure, for scripts (schema in docs/json.md).'
markdown\t'A summary table, e.g. for $GITHUB_STEP_SUMMARY.'
github\t'GitHub Actions annotations (::warning, ::notice).'"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l policy -d 'Policy file; its `migrate.destination` is where repositories go (default: $WSL_PLACE_POLICY, else `policy` in ~/.config/wsl-place/config.toml; the destination `destination` there, else ~/src)' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -s y -l yes -d 'Do not ask; accept the plan as shown'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -s n -l dry-run -d 'Print the plan and stop'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l abort -d 'Abandon an interrupted migration (remove its staging directory); after a finished one, remove the copy if nothing changed there since (asks; --yes confirms)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l remove-source -d 'After a verified copy, delete what the manifest proves was copied (asks again)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l sync -d 'After a finished migration: copy what changed at the source since to the destination, verified; a file changed at both places keeps both versions'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l skip-unreadable -d 'Finalise even if some source files could not be read (they are listed)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l skip-node-modules -d 'Leave node_modules behind (to be reinstalled) instead of copying it'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -s q -l quiet -d 'Print nothing but errors (questions are still asked unless --yes)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand migrate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand probe" -l probe-budget-ms -d 'Time budget in milliseconds' -r
complete -c wsl-place -n "__fish_wsl_place_using_subcommand probe" -l format -d 'The table for a person, as markdown, or every figure as JSON' -r -f -a "human\t'The report for a person.'
json\t'Every figure, for scripts (schema in docs/json.md).'
markdown\t'A summary table, e.g. for $GITHUB_STEP_SUMMARY.'
github\t'GitHub Actions annotations (::warning, ::notice).'"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand probe" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand probe" -s q -l quiet -d 'Print nothing but errors'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand probe" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand probe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand doctor" -l format -d 'The report for a person, as JSON, as markdown, or as a GitHub Actions annotation' -r -f -a "human\t'The report for a person.'
json\t'Every figure, for scripts (schema in docs/json.md).'
markdown\t'A summary table, e.g. for $GITHUB_STEP_SUMMARY.'
github\t'GitHub Actions annotations (::warning, ::notice).'"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand doctor" -l record -d 'Write the report as JSON to FILE, for a bug report: it is shown in full first, with the fields that hold your user names and paths named, and written after you answer y' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand doctor" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand doctor" -s y -l yes -d 'With --record: write without asking'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand doctor" -s q -l quiet -d 'Print nothing but errors'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand doctor" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand init" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand init" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall help" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall help" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall help" -f -a "install" -d 'Write the pre-commit hook (an existing one is chained, never overwritten)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall help" -f -a "uninstall" -d 'Remove the pre-commit hook this tool wrote, restoring a chained one'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from install" -l fail-on -d 'Block the commit (exit 1) when the verdict is at or above this level; passed to `check --advisory`' -r -f -a "advise\t''
move\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from install" -l policy -d 'Policy file for the hook\'s check, passed to `check --advisory`' -r -F
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from install" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from install" -l in-worktree -d 'Write the hook even when core.hooksPath is inside the working tree, where it (and this machine\'s path to wsl-place in it) can be committed'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from install" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "install" -d 'Write the pre-commit hook (an existing one is chained, never overwritten)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "uninstall" -d 'Remove the pre-commit hook this tool wrote, restoring a chained one'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand completions" -l color -d 'Colour: auto (on a terminal, unless NO_COLOR, TERM=dumb or CLICOLOR=0; CLICOLOR_FORCE=1 colours even a pipe), always, never. The last of --color and --no-color on the line wins' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wsl-place -n "__fish_wsl_place_using_subcommand completions" -l no-color -d 'Same as --color never'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand completions" -s h -l help -d 'Print help'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "check" -d 'Check where a repository lives and what that costs'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "survey" -d 'Check every git repository below a folder, one probe per mount, in one table'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "migrate" -d 'Copy the repository to the Linux disk, verified, and fix what moving breaks'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "probe" -d 'Measure small-file operation costs on a directory\'s mount'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "doctor" -d 'Say what wsl-place sees on this host, or write it down for a bug report'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "init" -d 'Print the shell hook that nudges you in a repository on a slow mount'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "hook" -d 'Install or remove a plain git pre-commit hook that runs `check --advisory`'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and not __fish_seen_subcommand_from check survey migrate probe doctor init hook completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "install" -d 'Write the pre-commit hook (an existing one is chained, never overwritten)'
complete -c wsl-place -n "__fish_wsl_place_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "uninstall" -d 'Remove the pre-commit hook this tool wrote, restoring a chained one'

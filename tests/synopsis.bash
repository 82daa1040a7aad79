# Comparing a program's usage lines (--help) with the SYNOPSIS of its man
# page: the same options must appear in both.  Used by tests/man.bats.
#
# An option is a word that starts with - or -- and a letter or digit,
# after brackets, bars and parentheses are taken as spaces: "-s",
# "--ghost-all".  The lone "-" (standard input) and hyphenated words
# ("pleat-grid") are not options.

# Reads text on stdin, prints its options sorted, one a line.
option_words() {
	awk '{
		gsub(/[][|(){}]/, " ")
		for (i = 1; i <= NF; i++) {
			w = $i
			sub(/[,;.]+$/, "", w)
			if (w ~ /^--?[A-Za-z0-9]/)
				print w
		}
	}' | LC_ALL=C sort -u
}

# The usage lines of PROG --help: from the first line that starts with
# "usage:" up to the first blank line.  Prints nothing when there is none.
help_usage_lines() {
	"$1" --help | awk '/^usage:/ { on = 1 } on && /^[[:space:]]*$/ { exit } on'
}

# The SYNOPSIS section of man page PAGE as mandoc renders it, formatting
# (overstrike) removed: the lines after the "SYNOPSIS" heading, up to
# the next heading.
man_synopsis_lines() {
	mandoc -T ascii "$1" | sed 's/.\x08//g' |
		awk '/^SYNOPSIS/ { on = 1; next } on && /^[^[:space:]]/ { exit } on'
}

# synopsis_matches_help PROG PAGE
# Succeeds when the usage lines of PROG --help and the SYNOPSIS of PAGE
# name the same options; otherwise prints what is missing on which side
# and fails.  Also fails when either side is missing altogether.
synopsis_matches_help() {
	local prog=$1 page=$2 usage synopsis in_help in_man only_help only_man
	usage=$(help_usage_lines "$prog")
	synopsis=$(man_synopsis_lines "$page")
	if [ -z "$usage" ]; then
		echo "$prog --help: no usage lines (a line starting with 'usage:')"
		return 1
	fi
	if [ -z "$synopsis" ]; then
		echo "$page: no SYNOPSIS section"
		return 1
	fi
	in_help=$(printf '%s\n' "$usage" | option_words)
	in_man=$(printf '%s\n' "$synopsis" | option_words)
	only_help=$(LC_ALL=C comm -23 <(printf '%s\n' "$in_help") <(printf '%s\n' "$in_man"))
	only_man=$(LC_ALL=C comm -13 <(printf '%s\n' "$in_help") <(printf '%s\n' "$in_man"))
	[ -z "$only_help" ] && [ -z "$only_man" ] && return 0
	[ -n "$only_help" ] &&
		echo "$(basename "$prog"): in --help usage but not in the SYNOPSIS of $page:" $only_help
	[ -n "$only_man" ] &&
		echo "$(basename "$prog"): in the SYNOPSIS of $page but not in --help usage:" $only_man
	return 1
}

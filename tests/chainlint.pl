#!/usr/bin/perl
# tests/chainlint.pl: find broken && chains in the bodies of test_expect_success,
# as git's t/chainlint does (in far fewer cases).
#
#   tests/chainlint.pl FILE...
#
# A body's commands must be joined with && (or ||, |, a line ending in \),
# or a failure in the middle goes unseen: `test_expect_code 2 cmd ;` throws
# the exit code away. A command may end without one only when it is the
# last of the body or of a block, or a condition: the next line closes a
# subshell, a group, an if, a loop or a case arm (`)`, `}`, `fi`, `done`,
# `else`, `elif`, `esac`, `;;`) or opens the body of an if or a loop
# (`then`, `do`), or the next command keeps its status (`code=$?`,
# `test $? = 2`), or it runs in the background (`&`). Here-documents and
# multi-line double-quoted strings are read as part of their command. Each broken link is printed as
# FILE:LINE: broken && chain: COMMAND; the exit status is 1 if any was.
use strict;
use warnings;

my $broken = 0;

# The next command line of @$lines from index $i: its text, or undef.
sub next_command {
	my ($lines, $i) = @_;
	for (; $i < @$lines; $i++) {
		my $t = $lines->[$i]{text};
		next if $t =~ /^\s*(#.*)?$/;
		return $t;
	}
	return undef;
}

# How many double quotes of a line are not escaped.
sub quotes {
	(my $q = shift) =~ s/\\.//g;
	return () = $q =~ /"/g;
}

# Split a body into logical command lines: here-documents and lines inside
# a double-quoted string join the line that starts them.
sub logical_lines {
	my ($body, $first) = @_;
	my @out;
	my @raw = split /\n/, $body, -1;
	for (my $i = 0; $i < @raw; $i++) {
		my $line = $raw[$i];
		my $no = $first + $i;
		# An odd number of unescaped double quotes: the string goes on.
		while (quotes($line) % 2 && $i + 1 < @raw) {
			$line .= "\n" . $raw[++$i];
		}
		if ($line =~ /<<-?\s*\\?["']?(\w+)["']?/) {
			my $word = $1;
			while ($i + 1 < @raw) {
				last if $raw[++$i] =~ /^\t*\Q$word\E\s*$/;
			}
		}
		push @out, { text => $line, no => $no };
	}
	return @out;
}

sub lint_body {
	my ($file, $body, $first) = @_;
	my @lines = logical_lines($body, $first);
	for (my $i = 0; $i < @lines; $i++) {
		my $t = $lines[$i]{text};
		next if $t =~ /^\s*(#.*)?$/;
		(my $end = $t) =~ s/\s+#[^"']*$//;	# a trailing comment
		$end =~ s/\s+$//;
		# Joined to the next command, or opening a block.
		next if $end =~ /(&&|\|\||\||\\|\bthen|\bdo|\belse|\{|\(|\bin|;;)$/;
		# A job in the background, waited for later.
		next if $end =~ /[^&]&$/;
		# A case label alone on its line: `x86_64)`.
		next if $end =~ /^\s*[\w*.|\$"'-]+\)$/ && $end !~ /\(/;
		my $next = next_command(\@lines, $i + 1);
		next if !defined $next;
		next if $next =~ /^\s*(\)|\}|fi\b|done\b|else\b|elif\b|esac\b|;;|then\b|do\b)/;
		# The status kept on purpose: `cmd` then `code=$?` or `test $? = 2`.
		next if $next =~ /^\s*(\w+=\$\?|test \$\?|echo \$\?)/;
		(my $shown = $t) =~ s/^\s+//;
		$shown =~ s/\n.*//s;
		print "$file:$lines[$i]{no}: broken && chain: $shown\n";
		$broken = 1;
	}
}

for my $file (@ARGV) {
	open my $fh, '<', $file or die "chainlint: cannot read $file: $!\n";
	my @src = <$fh>;
	close $fh;
	for (my $i = 0; $i < @src; $i++) {
		# test_expect_success [PREREQ] 'description' '   (the body on the lines after)
		next unless $src[$i] =~ /^\s*test_expect_success\b.*'\s*$/;
		my $first = $i + 2;
		my $body = '';
		for ($i++; $i < @src && $src[$i] !~ /^\s*'\s*$/; $i++) {
			$body .= $src[$i];
		}
		chomp $body;
		lint_body($file, $body, $first);
	}
}
exit $broken;
